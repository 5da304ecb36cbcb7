using Microsoft.Extensions.Options;

namespace Signing.Http.Telemetry;

/// <summary>
/// Refuses to start with a connection string and no identity to send with it: the exporter would start, fail every
/// minute's export with an authorization error in its own event source, and the metrics would never arrive. The
/// message is one line, names both settings, and never repeats the connection string. Refuses as well an offline
/// storage folder that is not an absolute path (it would move with the working directory), or one set while the
/// storage is turned off, which would say two opposite things.
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
}
