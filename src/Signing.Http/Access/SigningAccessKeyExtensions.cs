using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Signing.Http.Access;

/// <summary>
/// Access keys for a host that faces clients itself, SigningServer. The Functions app does not call these: its host
/// checks function keys before a request reaches the worker, and the worker's only client is that host.
/// </summary>
public static class SigningAccessKeyExtensions
{
    /// <summary>
    /// Registers the configured <see cref="AccessKeys"/> (from <see cref="SigningOptions.AccessKeys"/>, checked by
    /// <see cref="SigningOptionsValidator"/>) and the start-up line that says whether the endpoints are open.
    /// </summary>
    public static IServiceCollection AddSigningAccessKeys(this IServiceCollection services)
    {
        services.AddSingleton(sp => new AccessKeys(
            sp.GetRequiredService<IOptions<SigningOptions>>().Value.AccessKeys.Values.OfType<string>()));
        services.AddHostedService<AccessKeyStartupLog>();
        return services;
    }

    /// <summary>Requires an access key for every endpoint of <paramref name="builder"/>, when any key is configured (<see cref="AccessKeyFilter"/>).</summary>
    public static TBuilder RequireSigningAccessKey<TBuilder>(this TBuilder builder)
        where TBuilder : IEndpointConventionBuilder =>
        builder.AddEndpointFilter<TBuilder, AccessKeyFilter>();
}
