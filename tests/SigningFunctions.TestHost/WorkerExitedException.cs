namespace SigningFunctions.TestHost;

/// <summary>
/// The worker ended before it was ready to serve (a bad setting, a missing dependency): its exit code and its last
/// words, which are what a person needs to see, since the worker's own line names the setting.
/// </summary>
public sealed class WorkerExitedException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="exitCode">The worker's exit code.</param>
    /// <param name="output">Everything the worker said.</param>
    public WorkerExitedException(int exitCode, WorkerOutput output)
        : base($"The Functions worker exited with code {exitCode} before it was ready. Its last words:{Environment.NewLine}{output.Tail()}")
    {
        ExitCode = exitCode;
        Output = output;
    }

    /// <summary>The worker's exit code.</summary>
    public int ExitCode { get; }

    /// <summary>Everything the worker said, standard error included.</summary>
    public WorkerOutput Output { get; }
}
