namespace Signing.Tests;

/// <summary>
/// Tests that change the process time zone. xunit runs a collection with parallelization disabled on its own, after
/// the parallel ones, so no other test can observe the changed zone.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessTimeZoneGroup
{
    public const string Name = "Process time zone";
}

/// <summary>
/// Sets the process time zone through <c>TZ</c> (which .NET on Unix reads when it builds
/// <see cref="TimeZoneInfo.Local"/>) and puts the previous value back on dispose.
/// </summary>
internal sealed class ProcessTimeZone : IDisposable
{
    private const string Variable = "TZ";
    private readonly string? _previous;

    private ProcessTimeZone(string ianaId)
    {
        _previous = Environment.GetEnvironmentVariable(Variable);
        Environment.SetEnvironmentVariable(Variable, ianaId);
        TimeZoneInfo.ClearCachedData();
    }

    public static ProcessTimeZone Set(string ianaId) => new(ianaId);

    public void Dispose()
    {
        Environment.SetEnvironmentVariable(Variable, _previous);
        TimeZoneInfo.ClearCachedData();
    }
}
