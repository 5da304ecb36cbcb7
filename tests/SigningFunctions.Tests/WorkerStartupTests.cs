using SigningFunctions.TestHost;

namespace SigningFunctions.Tests;

/// <summary>A bad setting ends the published worker under the test host with exit code 1 and one line naming the setting.</summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerStartupTests(PublishedWorker worker)
{
    [Fact]
    public async Task A_bad_setting_ends_the_worker_with_one_line_naming_it()
    {
        var environment = WorkerSettings.With(new() { ["Signing__MaxInFlightBytes"] = "5" });

        var exited = await Assert.ThrowsAsync<WorkerExitedException>(() => worker.StartAsync(environment));

        Assert.Equal(1, exited.ExitCode);
        var line = Assert.Single(exited.Output.StandardError);
        Assert.Contains("Signing:MaxInFlightBytes", line, StringComparison.Ordinal);
        Assert.DoesNotContain(exited.Output.Lines, l => l.TrimStart().StartsWith("at ", StringComparison.Ordinal));
        Assert.DoesNotContain(exited.Output.Lines, l => l.Contains(KnownAnswers.KeyBase64, StringComparison.Ordinal));
    }
}
