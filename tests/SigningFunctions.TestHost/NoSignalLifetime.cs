using Microsoft.Extensions.Hosting;

namespace SigningFunctions.TestHost;

/// <summary>
/// A host lifetime that does not listen for SIGTERM or Ctrl+C. The test host runs two servers (gRPC and HTTP) and a
/// worker, which must stop in order; the program decides when (see Program.cs), and inside a test run no signal
/// handler of ours should be installed at all.
/// </summary>
internal sealed class NoSignalLifetime : IHostLifetime
{
    /// <inheritdoc/>
    public Task WaitForStartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <inheritdoc/>
    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
