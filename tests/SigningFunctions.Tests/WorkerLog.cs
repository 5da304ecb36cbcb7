using Signing.Tests.Waiting;
using SigningFunctions.TestHost;

namespace SigningFunctions.Tests;

/// <summary>Reads what the worker logged about one request, found by a query parameter only that request carries.</summary>
internal static class WorkerLog
{
    /// <summary>
    /// Waits for the worker's log to finish the request to <paramref name="path"/>, then asserts that neither it nor
    /// Kestrel's word on its connection (which comes after) says anything went wrong.
    /// </summary>
    public static async Task AssertEndedWithoutFaultAsync(FunctionsTestHost host, string path)
    {
        // The worker's log comes over gRPC after the request has ended, and Kestrel's word on the connection after that.
        bool Finished(string line) => line.Contains("Request finished HTTP/1.1 POST", StringComparison.Ordinal) && line.Contains(path, StringComparison.Ordinal);
        await BoundedWait.UntilAsync(() => host.Output.Lines.Any(Finished), TimeSpan.FromSeconds(10));
        await Task.Delay(200);
        var lines = host.Output.Lines.SkipWhile(l => !l.Contains(path, StringComparison.Ordinal)).ToArray();
        Assert.Contains(lines, Finished);
        Assert.DoesNotContain(lines, l =>
            l.Contains("ended abnormally", StringComparison.Ordinal) ||
            l.StartsWith("[log Error", StringComparison.Ordinal) ||
            l.StartsWith("[log Critical", StringComparison.Ordinal));
    }
}
