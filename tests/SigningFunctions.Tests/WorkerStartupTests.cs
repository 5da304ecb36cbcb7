using SigningFunctions.TestHost;

namespace SigningFunctions.Tests;

/// <summary>
/// A bad setting ends the published worker under the test host before it serves anything, with exit code 1 and one
/// line on standard error naming the setting (the host keeps that line in its logs), never an exception dump.
/// <c>Signing__MaxInFlightBytes=9223372036854775807</c> once ended it with exit code 134 and an unhandled
/// <c>OverflowException</c> from the budget's limiter.
/// </summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerStartupTests(PublishedWorker worker)
{
    [Theory]
    [InlineData("Signing__MaxInFlightBytes", "5", "Signing:MaxInFlightBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "-1", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "0", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "9223372036854775807", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "lots", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxInFlightBytes", "9223372036854775807", "Signing:MaxInFlightBytes")]
    [InlineData("Signing__BodyStallTimeout", "-00:00:01", "Signing:BodyStallTimeout")]
    [InlineData("Signing__MaxDecompressionRatio", "1", "Signing:MaxDecompressionRatio")]
    [InlineData("Signing__RecyclableMemoryStream__MaximumSmallPoolFreeBytes", "9223372036854775807", "Signing:RecyclableMemoryStream:MaximumSmallPoolFreeBytes")]
    [InlineData("Signing__RecyclableMemoryStream__BlockSize", " ", "Signing:RecyclableMemoryStream:BlockSize")]
    [InlineData("Signing__AccessKeys__ops__key", "0123456789abcdefghijklmnopqrstuvwxyz", "Signing:AccessKeys:ops")]
    [InlineData("DOTNET_GCHeapHardLimit", "0x10000000", "Signing:MaxInFlightBytes")]
    [InlineData("Signing__RecyclableMemoryStream__BlockSiz", "4096", "Signing:RecyclableMemoryStream:BlockSiz")]
    public async Task A_bad_setting_ends_the_worker_with_one_line_naming_it(string variable, string value, string setting)
    {
        var environment = WorkerSettings.With(new() { [variable] = value });

        var exited = await Assert.ThrowsAsync<WorkerExitedException>(() => worker.StartAsync(environment));

        Assert.Equal(1, exited.ExitCode);
        var line = Assert.Single(exited.Output.StandardError);
        Assert.StartsWith("Signing cannot start; fix these settings: ", line, StringComparison.Ordinal);
        Assert.Contains(setting, line, StringComparison.Ordinal);
        Assert.DoesNotContain(exited.Output.Lines, l => l.Contains("Exception", StringComparison.Ordinal));
        Assert.DoesNotContain(exited.Output.Lines, l => l.TrimStart().StartsWith("at ", StringComparison.Ordinal));
        Assert.DoesNotContain(exited.Output.Lines, l => l.Contains(KnownAnswers.KeyBase64, StringComparison.Ordinal));
    }
}
