using Microsoft.Extensions.Configuration;
using Signing.Http.Telemetry;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// With the OTLP exporter on, settings the OpenTelemetry SDK could not read stop the app at start-up with one line
/// naming the variable and never its value; without it, they are not the app's business.
/// </summary>
public sealed class OtlpExportSettingsValidationTests
{
    private const string Endpoint = "http://127.0.0.1:4318";

    // The first two ended the process with the SDK's stack trace as the host started (ArgumentOutOfRangeException,
    // "Headers provided in an invalid format"), the header's secret in it; the rest would export nowhere.
    [Theory]
    [InlineData("OTEL_METRIC_EXPORT_INTERVAL", "0")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key-secret-value")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "a=1,=2")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=abc,tenant=")]
    // Each of these started, and every export failed in silence: a name that is not an HTTP token, a value past ASCII,
    // or one with a line break or a NUL once percent-decoded (SigningServer against a listener on loopback, 28 November
    // 2026).
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "x-ok=1,a b=2")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "a:b=1")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=s%C3%A9cret")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=s\u00e9cret")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=line%0Abreak")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=line%0Dbreak")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=nul%00byte")]
    [InlineData("OTEL_METRIC_EXPORT_INTERVAL", "five")]
    [InlineData("OTEL_METRIC_EXPORT_TIMEOUT", "-1")]
    [InlineData("OTEL_EXPORTER_OTLP_PROTOCOL", "udp")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "notaurl")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://127.0.0.1:4318")]
    // The metrics forms, which the SDK prefers for metrics, passed unchecked before.
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "notaurl")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "udp")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "api-key-secret-value")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "api-key=line%0Abreak")]
    public void A_setting_the_sdk_cannot_read_is_refused_naming_it_not_its_value(string variable, string value)
    {
        var result = Validate(new() { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = Endpoint, [variable] = value });

        Assert.True(result.Failed);
        Assert.Contains(variable, result.FailureMessage, StringComparison.Ordinal);
        Assert.DoesNotContain(value, result.FailureMessage, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("OTEL_METRIC_EXPORT_INTERVAL", "60000")]
    [InlineData("OTEL_METRIC_EXPORT_TIMEOUT", "0")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "api-key=abc, tenant=x=y")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", OtlpExportEndToEndTests.ReadableHeaders)]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "https://127.0.0.1:4317")]
    [InlineData("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]
    [InlineData("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://127.0.0.1:4318/v1/metrics")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "api-key=abc")]
    public void Settings_the_sdk_reads_pass(string variable, string value) =>
        Assert.True(Validate(new() { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = Endpoint, [variable] = value }).Succeeded);

    [Fact]
    public void The_metrics_endpoint_alone_turns_the_checks_on()
    {
        var result = Validate(new() { ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = Endpoint + "/v1/metrics", ["OTEL_EXPORTER_OTLP_HEADERS"] = "garbage" });

        Assert.True(result.Failed);
        Assert.Contains("OTEL_EXPORTER_OTLP_HEADERS", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_an_endpoint_the_exporter_is_off_and_nothing_is_checked() =>
        Assert.True(Validate(new() { ["OTEL_METRIC_EXPORT_INTERVAL"] = "0", ["OTEL_EXPORTER_OTLP_HEADERS"] = "garbage" }).Succeeded);

    private static Microsoft.Extensions.Options.ValidateOptionsResult Validate(Dictionary<string, string?> settings) =>
        new OtlpExportSettingsValidator(new ConfigurationBuilder().AddInMemoryCollection(settings).Build()).Validate(null, new MetricsExportOptions());
}
