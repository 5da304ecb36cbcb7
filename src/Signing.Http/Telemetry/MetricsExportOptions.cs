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
}
