using System.Diagnostics;
using Signing.Tests.Processes;

namespace SigningFunctions.Tests;

/// <summary>
/// The Functions worker as the host starts it, as a process: a bad limit ends it before it contacts the host, with exit
/// code 1 and one line on standard error naming the setting (the host keeps that line in its logs), never an exception
/// dump. <c>Signing__MaxInFlightBytes=9223372036854775807</c> once ended it (and SigningServer) with exit code 134 and
/// an unhandled <c>OverflowException</c> from the budget's limiter; SigningServer also crashed on
/// <c>Signing__MaxRequestBodyBytes=-1</c>, which its Kestrel reads before the settings are checked.
/// </summary>
public sealed class WorkerStartupExitTests
{
    // The 32 bytes 0x00 … 0x1f, as in SigningServer.Tests.
    private const string KeyBase64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    [Theory]
    [InlineData("Signing__MaxRequestBodyBytes", "-1", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "0", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "9223372036854775807", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxRequestBodyBytes", "lots", "Signing:MaxRequestBodyBytes")]
    [InlineData("Signing__MaxInFlightBytes", "9223372036854775807", "Signing:MaxInFlightBytes")]
    [InlineData("Signing__BodyStallTimeout", "-00:00:01", "Signing:BodyStallTimeout")]
    [InlineData("Signing__RecyclableMemoryStream__MaximumSmallPoolFreeBytes", "9223372036854775807", "Signing:RecyclableMemoryStream:MaximumSmallPoolFreeBytes")]
    public async Task A_bad_limit_ends_the_worker_with_one_line_naming_it(string variable, string value, string setting)
    {
        var (exitCode, stdout, stderr) = await RunWorkerAsync(variable, value);

        Assert.Equal(1, exitCode);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("Signing cannot start; fix these settings: ", line, StringComparison.Ordinal);
        Assert.Contains(setting, line, StringComparison.Ordinal);
        Assert.DoesNotContain("Exception", stdout + stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stdout + stderr, StringComparison.Ordinal);
    }

    private static Task<(int ExitCode, string Stdout, string Stderr)> RunWorkerAsync(string variable, string value)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            WorkingDirectory = AppContext.BaseDirectory,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "SigningFunctions.dll"));
        foreach (var inherited in start.Environment.Keys.Where(k => k.StartsWith("Signing__", StringComparison.Ordinal) || k.StartsWith("AZURE_FUNCTIONS_", StringComparison.Ordinal) || k.StartsWith("OTEL_", StringComparison.Ordinal) || k.StartsWith("APPLICATIONINSIGHTS_", StringComparison.Ordinal)).ToList())
        {
            start.Environment.Remove(inherited);
        }

        start.Environment["Signing__Key"] = KeyBase64;
        start.Environment[variable] = value;

        return ProcessToExit.RunAsync(start);
    }
}
