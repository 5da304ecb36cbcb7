using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Signing.Http;

/// <summary>The one call each host makes to get the signing service.</summary>
public static class SigningServiceCollectionExtensions
{
    /// <summary>
    /// Registers <see cref="SignEndpoint"/>, <see cref="StatsEndpoint"/> and what they need, bound to configuration
    /// section <c>Signing</c> and validated when the host starts, so a missing or weak key stops the app before it takes
    /// a request. Also sets Kestrel's body limit to <see cref="SigningOptions.MaxRequestBodyBytes"/>, and adds the
    /// metrics services (which the usual hosts have already) so the <c>Signing</c> meter works in any container.
    /// </summary>
    public static IServiceCollection AddSigning(this IServiceCollection services)
    {
        services.AddOptions<SigningOptions>().BindConfiguration(SigningOptions.SectionName).ValidateOnStart();
        services.AddSingleton<IValidateOptions<SigningOptions>, SigningOptionsValidator>();
        services.AddOptions<KestrelServerOptions>().Configure<IOptions<SigningOptions>>(
            (kestrel, signing) => kestrel.Limits.MaxRequestBodySize = signing.Value.MaxRequestBodyBytes);

        services.AddSingleton(sp => new BufferPool(sp.GetRequiredService<IOptions<SigningOptions>>().Value.Buffers));
        // Reading Value runs the validator first, so a bad key fails there with the message that names the setting.
        services.AddSingleton(sp => SigningStrategies.CreateBuiltIn(
            SigningKey.FromBase64(sp.GetRequiredService<IOptions<SigningOptions>>().Value.Key),
            sp.GetRequiredService<BufferPool>()));
        services.AddMetrics();
        services.AddSingleton<SigningTelemetry>();
        services.AddSingleton<SignEndpoint>();
        services.AddSingleton<StatsEndpoint>();
        services.AddProblemDetails();
        return services;
    }
}
