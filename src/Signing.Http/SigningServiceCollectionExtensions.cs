using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using Signing.Http.Keys;
using Signing.Http.Memory;
using Signing.Http.Requests;
using Signing.Http.Stats;
using Signing.Http.Telemetry;

namespace Signing.Http;

/// <summary>The one call each host makes to get the signing service.</summary>
public static class SigningServiceCollectionExtensions
{
    /// <summary>
    /// Registers <see cref="SignEndpoint"/>, <see cref="VerifyEndpoint"/>, <see cref="StatsEndpoint"/> and what they
    /// need, bound to configuration section <c>Signing</c> and validated when the host starts, so a missing or weak key
    /// stops the app before it takes a request. Also sets Kestrel's body limit to
    /// <see cref="SigningOptions.MaxRequestBodyBytes"/> (<see cref="SigningKestrelLimits.ApplyBodyLimit"/>) and its socket
    /// transport's read buffer and blocks (<see cref="SigningKestrelLimits.ApplyReadBuffer"/>,
    /// <see cref="SigningKestrelLimits.ApplyReceiveBlocks"/>), and adds what
    /// the endpoints rely on in either host: the in-flight memory budget and its health check, request decompression's
    /// providers, problem details, and the logging and metrics services (which the usual hosts have already), and the export of the meters wherever configuration asks for it
    /// (<see cref="SigningMetricsExportExtensions.AddSigningMetricsExport"/>).
    /// </summary>
    public static IServiceCollection AddSigning(this IServiceCollection services)
    {
        services.AddOptions<SigningOptions>().BindConfiguration(SigningOptions.SectionName).ValidateOnStart();
        services.AddSingleton<IValidateOptions<SigningOptions>, SigningOptionsValidator>();
        services.AddOptions<KestrelServerOptions>().Configure<IConfiguration>(
            (kestrel, configuration) => SigningKestrelLimits.ApplyBodyLimit(kestrel.Limits, SigningOptions.ReadMaxRequestBodyBytes(configuration)));
        services.AddOptions<SocketTransportOptions>().Configure(SigningKestrelLimits.ApplyReadBuffer);
        SigningKestrelLimits.ApplyReceiveBlocks(services);

        services.PostConfigure<SigningOptions>(signing =>
        {
            // Derived, not configured; a block size the validator will refuse derives nothing.
            var streams = signing.RecyclableMemoryStream;
            if (streams.BlockSize > 0)
            {
                streams.MaximumStreamCapacity = StreamPoolSettings.MaximumStreamCapacity(signing.MaxRequestBodyBytes, streams.BlockSize);
            }
        });
        services.AddSingleton(sp => new StreamPool(sp.GetRequiredService<IOptions<SigningOptions>>().Value.RecyclableMemoryStream));
        services.AddSingleton(sp => sp.GetRequiredService<StreamPool>().Manager);
        // Reading Value runs the validator first, so a bad key fails there with the message that names the setting.
        services.AddSingleton(sp =>
        {
            var ring = SigningKeyRing.FromOptions(sp.GetRequiredService<IOptions<SigningOptions>>().Value, sp.GetRequiredService<RecyclableMemoryStreamManager>());
            var logger = sp.GetRequiredService<ILogger<SigningKeyRing>>();
            if (logger.IsEnabled(LogLevel.Information))
            {
                var ids = string.Join(", ", ring.Keys.Select(k => k.KeyId));
                SigningLog.KeyRingLoaded(logger, ring.ActiveKeyId, ring.Keys.Count, ids);
            }

            return ring;
        });
        services.AddSingleton(sp => sp.GetRequiredService<SigningKeyRing>().Active);
        services.AddSingleton(sp => InFlightBudgetSizing.Create(
            sp.GetRequiredService<IOptions<SigningOptions>>().Value,
            sp.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits,
            sp.GetRequiredService<IOptions<SocketTransportOptions>>().Value));
        services.AddSingleton(sp =>
        {
            var budget = sp.GetRequiredService<InFlightBudget>();
            var limits = StrategyBodyLimits.Create(sp.GetRequiredService<IOptions<SigningOptions>>().Value, budget, sp.GetRequiredService<SigningStrategies>());
            var logger = sp.GetRequiredService<ILogger<StrategyBodyLimits>>();
            if (logger.IsEnabled(LogLevel.Information))
            {
                var each = string.Join(", ", limits.Names.Select(name => $"{name} {limits[name]}"));
                SigningLog.BodyLimits(logger, budget.LimitBytes, each);
            }

            return limits;
        });
        services.AddSingleton<SlowBodies>();
        // The stall clock's time; tests put a fake one in its place.
        services.TryAddSingleton(TimeProvider.System);
        services.AddRequestDecompression();
        services.AddHealthChecks().AddCheck<InFlightBudgetHealthCheck>(InFlightBudgetHealthCheck.Name);
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
