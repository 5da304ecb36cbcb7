using Microsoft.Extensions.Options;

namespace Signing.Http.Telemetry;

/// <summary>
/// Refuses to start with a connection string and no identity to send with it: the exporter would start, fail every
/// minute's export with an authorization error in its own event source, and the metrics would never arrive. The
/// message is one line, names both settings, and never repeats the connection string. Refuses as well a connection
/// string the exporter could not read, or a client id that is not a Guid, which would fail only once the exporter
/// started, with a stack trace quoting the connection string; and an offline storage folder that is not an absolute
/// path (it would move with the working directory), or one set while the storage is turned off, which would say two
/// opposite things.
/// </summary>
public sealed class MetricsExportOptionsValidator : IValidateOptions<MetricsExportOptions>
{
    /// <inheritdoc/>
    public ValidateOptionsResult Validate(string? name, MetricsExportOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (!string.IsNullOrWhiteSpace(options.ApplicationInsightsConnectionString) && string.IsNullOrWhiteSpace(options.ManagedIdentityClientId))
        {
            return ValidateOptionsResult.Fail(
                $"{MetricsExportOptions.ConnectionStringSetting} is set, so metrics are exported to Application Insights, but {MetricsExportOptions.ManagedIdentityClientIdSetting} is not: " +
                "set it to the client id of the user-assigned managed identity that holds Monitoring Metrics Publisher on that resource, or unset the connection string.");
        }

        if (!string.IsNullOrWhiteSpace(options.ApplicationInsightsConnectionString))
        {
            if (ConnectionStringProblem(options.ApplicationInsightsConnectionString) is { } problem)
            {
                return ValidateOptionsResult.Fail($"{MetricsExportOptions.ConnectionStringSetting} {problem}: copy it whole from the Application Insights resource's overview.");
            }

            if (!Guid.TryParse(options.ManagedIdentityClientId, out _))
            {
                return ValidateOptionsResult.Fail($"{MetricsExportOptions.ManagedIdentityClientIdSetting} is not a client id: it is a Guid, the managed identity's client id.");
            }
        }

        if (options.StorageDirectory is { } directory)
        {
            if (options.DisableOfflineStorage)
            {
                return ValidateOptionsResult.Fail(
                    $"{MetricsExportOptions.StorageDirectorySetting} and {MetricsExportOptions.DisableOfflineStorageSetting} are both set: unset one of them.");
            }

            if (!Path.IsPathFullyQualified(directory))
            {
                return ValidateOptionsResult.Fail(
                    $"{MetricsExportOptions.StorageDirectorySetting} must be an absolute path, such as /home/signing/azure-monitor.");
            }
        }

        return ValidateOptionsResult.Success;
    }

    // The exporter reads the connection string as it starts, and a malformed one ended the process with a stack trace
    // that quoted it, instrumentation key and all. Checked here as the exporter reads it: key=value parts, an
    // InstrumentationKey that is a Guid, and endpoints that are absolute URLs. What is wrong, never the value; or null.
    private static string? ConnectionStringProblem(string connectionString)
    {
        var hasKey = false;
        foreach (var part in connectionString.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var equals = part.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0 || equals == part.Length - 1)
            {
                return "has a part that is not a name=value pair";
            }

            var (name, value) = (part[..equals].Trim(), part[(equals + 1)..].Trim());
            if (name.Equals("InstrumentationKey", StringComparison.OrdinalIgnoreCase))
            {
                if (!Guid.TryParse(value, out _))
                {
                    return "has an InstrumentationKey that is not a Guid";
                }

                hasKey = true;
            }
            else if (name.EndsWith("Endpoint", StringComparison.OrdinalIgnoreCase) &&
                !(Uri.TryCreate(value, UriKind.Absolute, out var uri) && uri.Scheme is "https" or "http"))
            {
                return $"has a {name} that is not an http or https URL";
            }
        }

        return hasKey ? null : "has no InstrumentationKey";
    }
}
