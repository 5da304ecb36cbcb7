namespace SigningFunctions.TestHost;

/// <summary>What to run under <see cref="FunctionsTestHost"/>, and where.</summary>
public sealed class FunctionsTestHostOptions
{
    /// <summary>The folder <c>dotnet publish</c> wrote the Functions app to (worker.config.json, host.json, the dlls).</summary>
    public required string AppDirectory { get; init; }

    /// <summary>
    /// App settings for the worker, added to the environment it inherits from this process; a null value removes an
    /// inherited one. This is how settings reach a worker in Azure, so it is the way they reach it here.
    /// </summary>
    public IReadOnlyDictionary<string, string?> Environment { get; init; } = new Dictionary<string, string?>();

    /// <summary>Where the HTTP front end listens; port 0 takes a free port. Loopback only: this is a test host.</summary>
    public string Urls { get; init; } = "http://127.0.0.1:0";

    /// <summary>
    /// Where the worker's logs and the front end's start-up lines are written as they arrive, or null to keep them
    /// only in <see cref="FunctionsTestHost.Output"/> (the tests).
    /// </summary>
    public TextWriter? Echo { get; init; }

    /// <summary>How long the worker has to connect, initialize and load its functions.</summary>
    public TimeSpan StartTimeout { get; init; } = TimeSpan.FromSeconds(90);
}
