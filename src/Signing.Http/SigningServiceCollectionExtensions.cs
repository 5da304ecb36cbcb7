using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Signing.Http.Keys;
using Signing.Http.Stats;
using Signing.Http.Telemetry;

namespace Signing.Http;

/// <summary>The one call each host makes to get the signing service.</summary>
public static class SigningServiceCollectionExtensions
{
    /// <summary>
    /// Registers <see cref="SignEndpoint"/>, <see cref="VerifyEndpoint"/>, <see cref="StatsEndpoint"/> and what they
    /// need, bound to configuration section <c>Signing</c> and validated when the host starts, so a missing or weak key
    /// stops the app before it takes a request. Also sets Kestrel's limits (<see cref="SigningKestrelLimits"/>, the body
    /// limit being <see cref="SigningOptions.MaxRequestBodyBytes"/>), and adds the logging and metrics services (which
    /// the usual hosts have already) so the endpoints' logs and the <c>Signing</c> meter work in any container, and the
    /// export of the meters wherever configuration asks for it (<see cref="SigningMetricsExportExtensions.AddSigningMetricsExport"/>).
    /// </summary>
    public static IServiceCollection AddSigning(this IServiceCollection services)
    {
        services.AddOptions<SigningOptions>().BindConfiguration(SigningOptions.SectionName).ValidateOnStart();
        services.AddSingleton<IValidateOptions<SigningOptions>, SigningOptionsValidator>();
        services.AddOptions<KestrelServerOptions>().Configure<IOptions<SigningOptions>>(
            (kestrel, signing) => SigningKestrelLimits.Apply(kestrel.Limits, signing.Value.MaxRequestBodyBytes));

        services.AddSingleton(sp => new BufferPool(sp.GetRequiredService<IOptions<SigningOptions>>().Value.Buffers));
        // Reading Value runs the validator first, so a bad key fails there with the message that names the setting.
        services.AddSingleton(sp =>
        {
            var ring = SigningKeyRing.FromOptions(sp.GetRequiredService<IOptions<SigningOptions>>().Value, sp.GetRequiredService<BufferPool>());
            var logger = sp.GetRequiredService<ILogger<SigningKeyRing>>();
            if (logger.IsEnabled(LogLevel.Information))
            {
                var ids = string.Join(", ", ring.Keys.Select(k => k.KeyId));
                SigningLog.KeyRingLoaded(logger, ring.ActiveKeyId, ring.Keys.Count, ids);
            }

            return ring;
        });
        services.AddSingleton(sp => sp.GetRequiredService<SigningKeyRing>().Active);
        services.AddLogging();
        services.AddMetrics();
        services.AddSingleton<SigningTelemetry>();
        services.AddSingleton(sp => InstanceStats.Describe(sp.GetRequiredService<IConfiguration>()));
        services.AddSigningMetricsExport();
        services.AddSingleton<SignEndpoint>();
        services.AddSingleton<VerifyEndpoint>();
        services.AddSingleton<StatsEndpoint>();
        services.AddProblemDetails();
        return services;
    }
}
