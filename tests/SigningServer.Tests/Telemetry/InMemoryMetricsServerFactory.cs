using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Metrics;
using Signing.Http.Stats;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// The usual test host with OpenTelemetry's in-memory exporter added to the meter provider that
/// <c>AddSigning()</c> registers, and a platform instance id as Azure would set it, so tests read what an exporter
/// would be sent.
/// </summary>
public sealed class InMemoryMetricsServerFactory : SigningServerFactory
{
    /// <summary>The instance id this host is given, as App Service sets it.</summary>
    public const string InstanceId = "test-instance";

    private readonly List<MetricSnapshot> _exported = [];

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public InMemoryMetricsServerFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            [InstanceStats.PlatformInstanceIdSettings[0]] = InstanceId,
        })
    {
    }

    /// <summary>The host's meter provider.</summary>
    public MeterProvider MeterProvider => Services.GetRequiredService<MeterProvider>();

    /// <summary>
    /// Makes the provider export now, and returns each metric as last exported, by name. The reader is cumulative, so
    /// the last export holds everything since the host started.
    /// </summary>
    public IReadOnlyDictionary<string, MetricSnapshot> Export()
    {
        Assert.True(MeterProvider.ForceFlush(10_000), "The meter provider did not flush within 10 s.");
        return _exported.GroupBy(m => m.Name).ToDictionary(g => g.Key, g => g.Last(), StringComparer.Ordinal);
    }

    /// <inheritdoc/>
    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        base.ConfigureWebHost(builder);
        builder.ConfigureServices(services => services.ConfigureOpenTelemetryMeterProvider(metrics => metrics.AddInMemoryExporter(_exported)));
    }
}
