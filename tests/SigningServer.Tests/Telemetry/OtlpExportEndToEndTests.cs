using System.Net;
using Signing.Http;
using Signing.Http.Stats;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// SigningServer started with the standard OTLP settings in its environment sends the <c>Signing</c> metrics, tagged
/// with their strategies, to an OTLP/HTTP receiver the test runs on loopback: when the export interval comes round, and
/// once more as it stops, which is all a scaled-in instance gets.
/// </summary>
public sealed class OtlpExportEndToEndTests
{
    /// <summary>
    /// Headers the validator passes that look odd: a value with a space, one percent-encoded, one with a '%' that
    /// encodes nothing and a tab, and a name with a dot and an underscore. The SDK sends each, decoded.
    /// </summary>
    internal const string ReadableHeaders = "x-tenant=a b, x-encoded=%41%42, A_b.c=%ZZ%09x";

    // Sent as a strategy name: it must be refused and never exported.
    private const string CallerText = "caller-text-5be1";

    private static readonly string[] Strategies = ["string", "utf8"];

    [Fact]
    public async Task Metrics_arrive_as_the_export_interval_comes_round()
    {
        await using var receiver = await OtlpReceiver.StartAsync();
        await using var server = await StartAsync(receiver, exportIntervalMilliseconds: 200);
        await SignWithEachStrategyAsync(server);

        // A few intervals; bounded so that a server that never exports fails the test instead of hanging it.
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (!receiver.Exports.Any(HasSigningMetrics) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100);
        }

        Assert.True(receiver.Exports.Any(HasSigningMetrics), "No export with the Signing metrics arrived within 20 s." + Environment.NewLine + server.Output);
        Assert.Equal(0, await server.StopAsync());
    }

    [Fact]
    public async Task What_the_server_holds_is_exported_as_it_stops()
    {
        await using var receiver = await OtlpReceiver.StartAsync();
        // Ten minutes: nothing is due while the test runs, so what arrives was sent on the way out.
        await using var server = await StartAsync(receiver, exportIntervalMilliseconds: 600_000);
        await SignWithEachStrategyAsync(server);
        Assert.Empty(receiver.Exports);

        Assert.Equal(0, await server.StopAsync());

        var export = Assert.Single(receiver.Exports);
        Assert.Equal("application/x-protobuf", export.Headers["Content-Type"]);
        var text = export.Text;
        Assert.True(HasSigningMetrics(export), "The export lacks the Signing metrics or their strategy tags.");
        Assert.True(export.HasAttribute(SigningTelemetry.OutcomeTag, "success"), "The export lacks the outcome tag.");
        Assert.True(export.HasAttribute("service.instance.id", $"e2e-instance/{server.ProcessId}"), "The export does not name the instance and process.");
        Assert.True(export.HasAttribute("service.name", "SigningServer"), "The export does not name the service.");
        foreach (var expected in new[]
        {
            SigningTelemetry.RequestAllocatedName, SigningTelemetry.RequestBodySizeName,
            "Microsoft.AspNetCore.Server.Kestrel", "Microsoft.AspNetCore.Hosting", "System.Runtime", "dotnet.gc.collections",

            // What infra/signing-workbook.json charts from ASP.NET Core's and Kestrel's meters, as .NET 10 names it.
            "http.server.request.duration", "http.response.status_code", "kestrel.active_connections", "kestrel.queued_connections",
        })
        {
            Assert.Contains(expected, text, StringComparison.Ordinal);
        }

        Assert.DoesNotContain(CallerText, text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_metrics_endpoint_alone_exports_and_the_service_name_set_in_the_environment_is_the_one_sent()
    {
        // What many collectors' instructions give: only the metrics form of the endpoint, the full URL. Before, it turned
        // nothing on, and OTEL_SERVICE_NAME was overridden by the application's name.
        await using var receiver = await OtlpReceiver.StartAsync();
        await using var server = await SigningServerProcess.StartAsync(new Dictionary<string, string>
        {
            ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = new Uri(receiver.Endpoint, "v1/metrics").ToString(),
            ["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"] = "http/protobuf",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "600000",
            ["OTEL_SERVICE_NAME"] = "signing-e2e",
        });
        await SignWithEachStrategyAsync(server);

        Assert.Equal(0, await server.StopAsync());

        Assert.True(receiver.Exports.Count == 1, $"{receiver.Exports.Count} exports arrived, not one.{Environment.NewLine}{server.Output}");
        var export = receiver.Exports.Single();
        Assert.True(HasSigningMetrics(export), "The export lacks the Signing metrics or their strategy tags.");
        Assert.True(export.HasAttribute("service.name", "signing-e2e"), "The export does not carry OTEL_SERVICE_NAME.");
        Assert.False(export.HasAttribute("service.name", "SigningServer"), "The application's name overrode OTEL_SERVICE_NAME.");
    }

    [Fact]
    public async Task Headers_that_pass_the_settings_check_travel_with_the_export()
    {
        await using var receiver = await OtlpReceiver.StartAsync();
        await using var server = await StartAsync(receiver, exportIntervalMilliseconds: 600_000, headers: ReadableHeaders);

        Assert.Equal(0, await server.StopAsync());

        var headers = Assert.Single(receiver.Exports).Headers;
        Assert.Equal("a b", headers["x-tenant"]);
        Assert.Equal("AB", headers["x-encoded"]);
        Assert.Equal("%ZZ\tx", headers["A_b.c"]);
    }

    private static bool HasSigningMetrics(OtlpReceiver.Export export) =>
        export.Text.Contains(SigningTelemetry.MeterName, StringComparison.Ordinal) &&
        export.Text.Contains(SigningTelemetry.RequestDurationName, StringComparison.Ordinal) &&
        Strategies.All(s => export.HasAttribute(SigningTelemetry.StrategyTag, s));

    private static Task<SigningServerProcess> StartAsync(OtlpReceiver receiver, int exportIntervalMilliseconds, string? headers = null)
    {
        var environment = new Dictionary<string, string>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.Endpoint.ToString(),
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = exportIntervalMilliseconds.ToString(System.Globalization.CultureInfo.InvariantCulture),
            [InstanceStats.PlatformInstanceIdSettings[0]] = "e2e-instance",
        };
        if (headers is not null)
        {
            environment["OTEL_EXPORTER_OTLP_HEADERS"] = headers;
        }

        return SigningServerProcess.StartAsync(environment);
    }

    private static async Task SignWithEachStrategyAsync(SigningServerProcess server)
    {
        using var client = new HttpClient { BaseAddress = server.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };
        foreach (var strategy in Strategies)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(Bodies.Canonical(widgetCount: 20, seed: 7)));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        using var refused = await client.PostAsync("/api/sign?strategy=" + CallerText, Bodies.Json(Bodies.Canonical(widgetCount: 1, seed: 7)));
        Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
    }
}
