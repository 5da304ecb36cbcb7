using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using Signing.Http;
using Signing.Http.Requests;
using Signing.Http.Stats;
using Signing.Http.Telemetry;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// What the meter provider that <c>AddSigning()</c> registers hands an exporter, read through OpenTelemetry's in-memory
/// exporter: per-strategy figures that add up across instances, tagged with the canonical strategy and outcome only,
/// the runtime's and ASP.NET Core's meters beside them, the instance that made them, and nothing at all when no
/// exporter is configured.
/// </summary>
[Collection(MetricsExportGroup.Name)]
public sealed class MetricsExportTests
{
    // Sent as a strategy name: it must be refused and never become a tag value.
    private const string CallerText = "caller-text-7f3a";

    // In ordinal order, as the assertion sorts them.
    private static readonly string[] SigningTags = [SigningTelemetry.OutcomeTag, SigningTelemetry.StrategyTag];

    [Fact]
    public async Task Each_strategy_exports_its_requests_allocations_and_body_bytes_under_its_canonical_name()
    {
        using var factory = new InMemoryMetricsServerFactory();
        using var client = factory.CreateClient();
        var names = factory.Strategies.Names;
        var sent = new Dictionary<string, (long Allocated, long BodyBytes)>(StringComparer.Ordinal);
        for (var i = 0; i < names.Count; i++)
        {
            var body = Bodies.Canonical(widgetCount: 5 + i, seed: i);
            // Named in upper case: the tag is the canonical name, not what the caller wrote.
            using var response = await client.PostAsync("/api/sign?strategy=" + names[i].ToUpperInvariant(), Bodies.Json(body));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            sent[names[i]] = (Allocated(response), body.Length);
        }

        var truncated = Bodies.Canonical(widgetCount: 3, seed: 99)[..^2];
        using (var failed = await client.PostAsync("/api/sign?strategy=" + names[0], Bodies.Json(truncated)))
        {
            Assert.Equal(HttpStatusCode.BadRequest, failed.StatusCode);
            sent[names[0] + "/failure"] = (Allocated(failed), truncated.Length);
        }

        using (var unknown = await client.PostAsync("/api/sign?strategy=" + CallerText, Bodies.Json(Bodies.Canonical(1, 1))))
        {
            Assert.Equal(HttpStatusCode.BadRequest, unknown.StatusCode);
        }

        var metrics = factory.Export();

        foreach (var strategy in names)
        {
            var success = Point(metrics[SigningTelemetry.RequestDurationName], strategy, "success");
            Assert.Equal(1, success.GetHistogramCount());
            Assert.True(success.GetHistogramSum() > 0);

            var allocated = Point(metrics[SigningTelemetry.RequestAllocatedName], strategy, "success");
            Assert.Equal(1, allocated.GetHistogramCount());
            Assert.Equal(sent[strategy].Allocated, (long)allocated.GetHistogramSum());

            var body = Point(metrics[SigningTelemetry.RequestBodySizeName], strategy, "success");
            Assert.Equal(1, body.GetHistogramCount());
            Assert.Equal(sent[strategy].BodyBytes, (long)body.GetHistogramSum());
        }

        var failure = sent[names[0] + "/failure"];
        Assert.Equal(1, Point(metrics[SigningTelemetry.RequestDurationName], names[0], "failure").GetHistogramCount());
        Assert.Equal(failure.Allocated, (long)Point(metrics[SigningTelemetry.RequestAllocatedName], names[0], "failure").GetHistogramSum());
        Assert.Equal(failure.BodyBytes, (long)Point(metrics[SigningTelemetry.RequestBodySizeName], names[0], "failure").GetHistogramSum());

        // Only the canonical names, the outcomes, the phases and the stream pool's fixed names appear, on these
        // instruments and every other of the meter.
        foreach (var name in new[] { SigningTelemetry.RequestDurationName, SigningTelemetry.RequestAllocatedName, SigningTelemetry.RequestBodySizeName })
        {
            Assert.All(metrics[name].MetricPoints, p => Assert.Equal(SigningTags, Tags(p).Keys.Order(StringComparer.Ordinal)));
        }

        var values = metrics.Values.Where(m => m.MeterName == SigningTelemetry.MeterName).SelectMany(m => m.MetricPoints).SelectMany(p => Tags(p).Values).ToList();
        Assert.All(values, v => Assert.DoesNotContain(CallerText, v, StringComparison.OrdinalIgnoreCase));
        string[] fixedValues =
        [
            "success", "failure", "refused", "read", "parse", "sign", "small", "large",
            "block_created", "large_buffer_created", "buffer_discarded", "stream_over_capacity", "stream_double_disposed", "stream_finalized",
        ];
        Assert.Subset(names.Concat(fixedValues).ToHashSet(StringComparer.Ordinal), values.ToHashSet(StringComparer.Ordinal));
    }

    [Fact]
    public async Task The_runtime_and_ASP_NET_Core_meters_are_exported_beside_the_Signing_meter()
    {
        using var factory = new InMemoryMetricsServerFactory();
        using var client = factory.CreateClient();
        using (var response = await client.PostAsync("/api/sign", Bodies.Json(Bodies.Canonical(2, 2))))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        var metrics = factory.Export();

        Assert.Equal("System.Runtime", metrics["dotnet.gc.collections"].MeterName);
        Assert.Equal("Microsoft.AspNetCore.Hosting", metrics["http.server.request.duration"].MeterName);
        Assert.Equal(SigningTelemetry.MeterName, metrics[SigningTelemetry.PoolInUseName].MeterName);
        // TestServer has no Kestrel; the OTLP end-to-end test sees Kestrel's meter.
        Assert.Subset(SigningMetricsExportExtensions.MeterNames.ToHashSet(StringComparer.Ordinal), metrics.Values.Select(m => m.MeterName).ToHashSet(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Exports_name_the_service_and_the_instance_and_process_that_made_them_as_the_stats_do()
    {
        using var factory = new InMemoryMetricsServerFactory();
        using var client = factory.CreateClient();

        var stats = await client.GetFromJsonAsync<ServiceStats>("/api/stats");

        var resource = factory.MeterProvider.GetResource().Attributes.ToDictionary(a => a.Key, a => a.Value, StringComparer.Ordinal);
        Assert.Equal("SigningServer", resource["service.name"]);
        Assert.Equal($"{InMemoryMetricsServerFactory.InstanceId}/{Environment.ProcessId}", resource["service.instance.id"]);
        Assert.Equal(InMemoryMetricsServerFactory.InstanceId, stats!.Instance.Id);
        Assert.Equal(Environment.ProcessId, stats.Instance.ProcessId);
    }

    [Fact]
    public async Task Without_an_exporter_configured_the_provider_enables_no_instrument()
    {
        // The SDK enables an instrument of a meter it subscribes to only when it has somewhere to send it, so a probe in
        // the Signing meter shows whether any exporter was registered. (With OTEL_EXPORTER_OTLP_ENDPOINT set in the
        // environment of the test run, one is, and this test fails as it should.)
        using var probeMeter = new Meter(SigningTelemetry.MeterName);
        var probe = probeMeter.CreateCounter<long>("signing.test.probe");

        using (var exporting = new InMemoryMetricsServerFactory())
        {
            exporting.CreateClient().Dispose();
            Assert.True(probe.Enabled, "With the in-memory exporter the provider should enable the probe: the probe does not work.");
        }

        using var factory = new SigningServerFactory();
        using var client = factory.CreateClient();
        using (var response = await client.PostAsync("/api/sign", Bodies.Json(Bodies.Canonical(2, 2))))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        Assert.NotNull(factory.Services.GetService<MeterProvider>());
        Assert.False(probe.Enabled, "With no exporter configured, the meter provider enabled an instrument: something is exporting.");
    }

    private static long Allocated(HttpResponseMessage response) =>
        CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes)!.Value + (CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes) ?? 0);

    private static MetricPoint Point(MetricSnapshot metric, string strategy, string outcome) =>
        Assert.Single(metric.MetricPoints, p => Tags(p).GetValueOrDefault(SigningTelemetry.StrategyTag) == strategy && Tags(p).GetValueOrDefault(SigningTelemetry.OutcomeTag) == outcome);

    private static Dictionary<string, string> Tags(MetricPoint point)
    {
        var tags = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var tag in point.Tags)
        {
            tags[tag.Key] = Convert.ToString(tag.Value, System.Globalization.CultureInfo.InvariantCulture) ?? string.Empty;
        }

        return tags;
    }
}
