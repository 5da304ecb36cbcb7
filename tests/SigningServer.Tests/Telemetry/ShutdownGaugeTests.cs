using System.Net;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// The gauges that read the in-flight budget are observed once more as SigningServer stops, by the meter provider's
/// last export, after the host has begun disposing its services. That reading must not throw (it did when the budget
/// was a <c>ConcurrencyLimiter</c>, disposed by then, and the gauge was missing from the last export), so a scaled-in
/// instance's last export still has them.
/// </summary>
public sealed class ShutdownGaugeTests
{
    [Fact]
    public async Task The_last_export_at_stop_has_the_budget_gauges_and_nothing_is_disposed_too_early()
    {
        await using var receiver = await OtlpReceiver.StartAsync();
        // Ten minutes: nothing is due while the test runs, so the one export is the one sent on the way out.
        await using var server = await SigningServerProcess.StartAsync(new Dictionary<string, string>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.Endpoint.ToString(),
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "600000",
        });
        using (var client = new HttpClient { BaseAddress = server.BaseAddress, Timeout = TimeSpan.FromSeconds(30) })
        {
            using var response = await client.PostAsync("/api/sign", Bodies.Json(Bodies.Canonical(widgetCount: 5, seed: 3)));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        Assert.Equal(0, await server.StopAsync());

        var export = Assert.Single(receiver.Exports);
        Assert.Contains(SigningTelemetry.InFlightUsageName, export.Text, StringComparison.Ordinal);
        Assert.Contains(SigningTelemetry.InFlightLimitName, export.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("ObjectDisposedException", server.Output, StringComparison.Ordinal);
    }
}
