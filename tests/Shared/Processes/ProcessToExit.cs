using System.Diagnostics;

namespace Signing.Tests.Processes;

/// <summary>
/// Runs a process that is expected to end by itself (a host refusing its settings) and returns what it wrote, for the
/// start-up tests of both hosts.
/// </summary>
internal static class ProcessToExit
{
    /// <summary>
    /// Starts <paramref name="start"/> with its output redirected, waits at most 60 s for it to exit (killing it and
    /// throwing if it does not), and returns its exit code and both streams.
    /// </summary>
    public static async Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(ProcessStartInfo start)
    {
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.UseShellExecute = false;
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        return (process.ExitCode, await stdout, await stderr);
    }
}
