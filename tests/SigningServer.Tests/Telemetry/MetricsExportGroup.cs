namespace SigningServer.Tests.Telemetry;

/// <summary>
/// The tests that watch an OpenTelemetry meter provider, run one at a time after the rest. The provider subscribes to
/// meters by name, process-wide, so while other test hosts serve requests it would count theirs too; alone, what it
/// exports is exactly what the test did.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MetricsExportGroup
{
    public const string Name = "Metrics export";
}
