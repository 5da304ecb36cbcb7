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

    // The exporter reads the connection string as it starts, and one it could not read ended the process with a stack
    // trace that quoted it, or a part of it. Checked here as the exporter reads it (Azure.Core's connection string, then
    // the exporter's own rules): at most 4,096 characters; name=value parts separated by ';', which may end the string
    // but not start it, come twice in a row or stand before blanks; each name once; an InstrumentationKey that is a
    // Guid; endpoints that are http or https URLs; an EndpointSuffix that makes a host name and a Location that is a
    // region's name. What is wrong, never the value; or null.
    private static string? ConnectionStringProblem(string connectionString)
    {
        const int MaxLength = 4096;
        if (connectionString.Length > MaxLength)
        {
            return $"is longer than the {MaxLength} characters the exporter reads";
        }

        var parts = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var part in connectionString[..^(connectionString.EndsWith(';') ? 1 : 0)].Split(';'))
        {
            if (part.Split('=', 2, StringSplitOptions.TrimEntries) is not [{ Length: > 0 } name, { Length: > 0 } value])
            {
                return "has a part that is not a name=value pair";
            }

            if (!parts.TryAdd(name, value))
            {
                return $"has {name} twice";
            }
        }

        if (!parts.TryGetValue("InstrumentationKey", out var key))
        {
            return "has no InstrumentationKey";
        }

        if (!Guid.TryParse(key, out _))
        {
            return "has an InstrumentationKey that is not a Guid";
        }

        if (parts.FirstOrDefault(part => part.Key.EndsWith("Endpoint", StringComparison.OrdinalIgnoreCase) &&
            !(Uri.TryCreate(part.Value, UriKind.Absolute, out var uri) && uri.Scheme is "https" or "http")).Key is { } endpoint)
        {
            return $"has an endpoint, {endpoint}, that is not an http or https URL";
        }

        // The exporter builds its endpoints' host names from these two: https://<location>.<prefix>.<suffix>/.
        if (parts.TryGetValue("EndpointSuffix", out var suffix) && !Uri.TryCreate($"https://dc.{suffix.TrimStart('.')}", UriKind.Absolute, out _))
        {
            return "has an EndpointSuffix that does not make a host name";
        }

        return parts.TryGetValue("Location", out var location) && !location.TrimEnd('.').All(char.IsLetterOrDigit)
            ? "has a Location that is not a region's name (letters and digits only)"
            : null;
    }
}
