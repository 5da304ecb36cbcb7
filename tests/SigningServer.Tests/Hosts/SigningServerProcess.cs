using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer as an operator runs it: <c>dotnet SigningServer.dll</c> in its own process, configured only through
/// environment variables, on a loopback port it picks, stopped with SIGTERM as a platform stops an instance. For what
/// only a real process shows: settings read from its environment, and what it does as it shuts down.
/// </summary>
internal sealed partial class SigningServerProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _output;

    private SigningServerProcess(Process process, ConcurrentQueue<string> output, Uri baseAddress)
    {
        _process = process;
        _output = output;
        BaseAddress = baseAddress;
    }

    public Uri BaseAddress { get; }

    public int ProcessId => _process.Id;

    /// <summary>Everything the server wrote to stdout and stderr so far.</summary>
    public string Output => string.Join(Environment.NewLine, _output);

    /// <summary>
    /// Starts the server built beside the tests with the test key, in Production, with no inherited OpenTelemetry or
    /// Application Insights settings, plus <paramref name="environment"/>, from <paramref name="workingDirectory"/>
    /// (by default the folder it was built to); returns once it listens (60 s at most).
    /// </summary>
    public static async Task<SigningServerProcess> StartAsync(IReadOnlyDictionary<string, string> environment, string? workingDirectory = null)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            WorkingDirectory = workingDirectory ?? AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "SigningServer.dll"));
        start.ArgumentList.Add("--urls");
        start.ArgumentList.Add("http://127.0.0.1:0");
        foreach (var inherited in start.Environment.Keys.Where(k => k.StartsWith("OTEL_", StringComparison.Ordinal) || k.StartsWith("APPLICATIONINSIGHTS_", StringComparison.Ordinal) || k.StartsWith("ASPNETCORE_", StringComparison.Ordinal)).ToList())
        {
            start.Environment.Remove(inherited);
        }

        start.Environment["ASPNETCORE_ENVIRONMENT"] = "Production";
        start.Environment["Signing__Key"] = TestKey.Base64;
        start.Environment["Logging__LogLevel__Signing.Http"] = "Warning";
        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        var output = new ConcurrentQueue<string>();
        var listening = new TaskCompletionSource<Uri>(TaskCreationOptions.RunContinuationsAsynchronously);
        var process = new Process { StartInfo = start, EnableRaisingEvents = true };
        process.OutputDataReceived += (_, e) => Read(e.Data);
        process.ErrorDataReceived += (_, e) => Read(e.Data);
        process.Exited += (_, _) => listening.TrySetException(new InvalidOperationException("SigningServer exited before it listened."));
        Assert.True(process.Start(), "SigningServer did not start.");
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        try
        {
            return new SigningServerProcess(process, output, await listening.Task.WaitAsync(TimeSpan.FromSeconds(60)));
        }
        catch (Exception e) when (e is InvalidOperationException or TimeoutException)
        {
            await new SigningServerProcess(process, output, new Uri("http://127.0.0.1")).DisposeAsync();
            throw new InvalidOperationException($"SigningServer did not listen: {e.Message}{Environment.NewLine}{string.Join(Environment.NewLine, output)}", e);
        }

        void Read(string? line)
        {
            if (line is null)
            {
                return;
            }

            output.Enqueue(line);
            if (ListeningOn().Match(line) is { Success: true } match)
            {
                listening.TrySetResult(new Uri(match.Groups["url"].Value));
            }
        }
    }

    /// <summary>Sends SIGTERM, as the platform does when it stops an instance, and returns the exit code (30 s at most).</summary>
    public async Task<int> StopAsync()
    {
        using (var kill = Process.Start("kill", ["-TERM", _process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync();
        }

        await _process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(30));
        return _process.ExitCode;
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }

    [GeneratedRegex(@"Now listening on: (?<url>http://127\.0\.0\.1:\d+)")]
    private static partial Regex ListeningOn();
}
