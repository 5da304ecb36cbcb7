using System.Globalization;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;

namespace Signing.Http.Telemetry;

/// <summary>
/// Refuses to start with OTLP settings the OpenTelemetry SDK could not read, when the OTLP exporter is on
/// (<see cref="SigningMetricsExportExtensions.OtlpEndpointVariable"/> or its metrics form is set): the SDK reads them
/// only as the host
/// starts, and ends the process there with a stack trace, or exports nowhere in silence. The message names the
/// variable and never repeats its value (the headers carry credentials).
/// </summary>
public sealed class OtlpExportSettingsValidator(IConfiguration configuration) : IValidateOptions<MetricsExportOptions>
{
    /// <inheritdoc/>
    public ValidateOptionsResult Validate(string? name, MetricsExportOptions options)
    {
        if (!SigningMetricsExportExtensions.IsOtlpOn(variable => configuration[variable]))
        {
            return ValidateOptionsResult.Success;
        }

        // Each setting in its general form and its metrics form, which the SDK prefers for metrics.
        var failures = new List<string>();
        foreach (var variable in new[] { SigningMetricsExportExtensions.OtlpEndpointVariable, SigningMetricsExportExtensions.OtlpMetricsEndpointVariable })
        {
            if (configuration[variable] is { Length: > 0 } url &&
                (!Uri.TryCreate(url, UriKind.Absolute, out var endpoint) || endpoint.Scheme is not ("http" or "https")))
            {
                failures.Add($"{variable} is not an http or https URL, such as http://localhost:4317.");
            }
        }

        foreach (var variable in new[] { "OTEL_EXPORTER_OTLP_PROTOCOL", SigningMetricsExportExtensions.OtlpMetricsProtocolVariable })
        {
            if (configuration[variable] is { Length: > 0 } protocol && protocol.Trim() is not ("grpc" or "http/protobuf"))
            {
                failures.Add($"{variable} is neither grpc nor http/protobuf.");
            }
        }

        foreach (var variable in new[] { "OTEL_EXPORTER_OTLP_HEADERS", SigningMetricsExportExtensions.OtlpMetricsHeadersVariable })
        {
            if (configuration[variable] is { Length: > 0 } headers && headers.Split(',', StringSplitOptions.TrimEntries).Any(IsNotAHeader))
            {
                failures.Add($"{variable} is not a comma-separated list of name=value pairs whose names are HTTP tokens and whose values, percent-decoded, are ASCII on one line.");
            }
        }

        foreach (var (variable, least) in new[] { ("OTEL_METRIC_EXPORT_INTERVAL", 1), ("OTEL_METRIC_EXPORT_TIMEOUT", 0) })
        {
            if (configuration[variable] is { Length: > 0 } milliseconds &&
                !(int.TryParse(milliseconds, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value >= least))
            {
                failures.Add($"{variable} is not a whole number of milliseconds of at least {least}.");
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    // The SDK splits each part at its first '=' and throws as the host starts at a part that is not a pair (an empty
    // value is refused too, as no header is sent without one). It percent-decodes the value and adds the pair to every
    // export's request, where HttpClient refuses a name that is not a token and a value with a line break, a NUL or a
    // character past ASCII: every export then fails, in silence (gRPC's metadata is ASCII by its specification too).
    private static bool IsNotAHeader(string part) =>
        part.Split('=', 2, StringSplitOptions.TrimEntries) is not [{ Length: > 0 } name, { Length: > 0 } value] ||
        !name.All(c => char.IsAsciiLetterOrDigit(c) || "!#$%&'*+-.^_`|~".Contains(c, StringComparison.Ordinal)) ||
        Uri.UnescapeDataString(value).Any(c => c is '\r' or '\n' or '\0' || !char.IsAscii(c));
}
