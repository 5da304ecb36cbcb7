namespace Signing.Http.Telemetry;

/// <summary>
/// Where the Azure Monitor exporter sends the service's metrics, and as whom. Both are read from configuration by
/// <see cref="SigningMetricsExportExtensions.AddSigningMetricsExport"/> and checked at start-up by
/// <see cref="MetricsExportOptionsValidator"/>, so a half-configured exporter stops the app instead of losing every
/// export in silence.
/// </summary>
/// <remarks>
/// OTLP has no options here: the OpenTelemetry SDK reads its own <c>OTEL_EXPORTER_OTLP_*</c> settings, and only the
/// decision whether to register it at all is ours (<see cref="SigningMetricsExportExtensions.OtlpEndpointVariable"/>).
/// </remarks>
public sealed class MetricsExportOptions
{
    /// <summary>
    /// The setting that turns the Azure Monitor exporter on: the connection string of the Application Insights resource,
    /// under the name the Functions host and the Azure Monitor libraries already use for it.
    /// </summary>
    public const string ConnectionStringSetting = "APPLICATIONINSIGHTS_CONNECTION_STRING";

    /// <summary>
    /// The setting (environment variable <c>Signing__MetricsExport__ManagedIdentityClientId</c>) that names the
    /// user-assigned managed identity the exporter signs in as. A setting of its own, rather than the storage
    /// connection's <c>AzureWebJobsStorage__clientId</c>, so that each use of the identity says what it is for.
    /// </summary>
    public const string ManagedIdentityClientIdSetting = "Signing:MetricsExport:ManagedIdentityClientId";

    /// <summary>
    /// The setting (environment variable <c>Signing__MetricsExport__StorageDirectory</c>) that moves the Azure Monitor
    /// exporter's offline storage: see <see cref="StorageDirectory"/>.
    /// </summary>
    public const string StorageDirectorySetting = "Signing:MetricsExport:StorageDirectory";

    /// <summary>
    /// The setting (environment variable <c>Signing__MetricsExport__DisableOfflineStorage</c>) that turns the Azure
    /// Monitor exporter's offline storage off: see <see cref="DisableOfflineStorage"/>.
    /// </summary>
    public const string DisableOfflineStorageSetting = "Signing:MetricsExport:DisableOfflineStorage";

    /// <summary>
    /// The Application Insights connection string (<see cref="ConnectionStringSetting"/>); <see langword="null"/>
    /// leaves the Azure Monitor exporter off. It names the resource and its ingestion endpoint; it is not logged.
    /// </summary>
    public string? ApplicationInsightsConnectionString { get; set; }

    /// <summary>
    /// The client id of the managed identity that publishes the metrics (<see cref="ManagedIdentityClientIdSetting"/>).
    /// Required with a connection string: the resource accepts only Entra ID sign-ins (its local auth is off), and the
    /// exporter, unlike the Functions host, does not read <c>APPLICATIONINSIGHTS_AUTHENTICATION_STRING</c>.
    /// </summary>
    public string? ManagedIdentityClientId { get; set; }

    /// <summary>
    /// Where the Azure Monitor exporter keeps the exports it could not send, to send them again later
    /// (<see cref="StorageDirectorySetting"/>); an absolute path. <see langword="null"/> leaves the exporter's default:
    /// <c>$TMPDIR/Microsoft/AzureMonitor</c>, else <c>/var/tmp/Microsoft/AzureMonitor</c>, else
    /// <c>/tmp/Microsoft/AzureMonitor</c> on Linux (<c>%LOCALAPPDATA%</c> or <c>%TEMP%</c> on Windows), each in a
    /// subfolder named by a hash of the resource, process and app folder. Set it where that folder is read-only, or
    /// shared by processes that should not see each other's metrics.
    /// </summary>
    public string? StorageDirectory { get; set; }

    /// <summary>
    /// Turns the exporter's offline storage off (<see cref="DisableOfflineStorageSetting"/>): an export that fails is
    /// dropped instead of written to disk and sent again. Metrics are a minute's aggregate each, so losing one costs a
    /// gap in the charts, not requests; an instance that Flex Consumption scales in takes its stored exports with it.
    /// </summary>
    public bool DisableOfflineStorage { get; set; }
}
