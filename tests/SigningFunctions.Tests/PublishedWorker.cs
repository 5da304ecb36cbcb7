using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;
using SigningFunctions.TestHost;

namespace SigningFunctions.Tests;

/// <summary>
/// src/SigningFunctions published once per test run (<c>dotnet publish -c Release</c> into a temporary folder, as a
/// deployment does), and the workers started from it under <see cref="FunctionsTestHost"/>: one per set of settings,
/// shared by every test that asks for the same set, and stopped when the run ends. Publishing takes a minute or so;
/// it is bounded by <see cref="PublishTimeout"/>.
/// </summary>
public sealed class PublishedWorker : IAsyncLifetime
{
    private static readonly TimeSpan PublishTimeout = TimeSpan.FromMinutes(5);

    private readonly ConcurrentDictionary<WorkerSettings, Lazy<Task<FunctionsTestHost>>> _hosts = new();

    /// <summary>The publish output.</summary>
    public string AppDirectory { get; } = Path.Combine(Path.GetTempPath(), "SigningFunctions.publish." + Guid.NewGuid().ToString("N"));

    /// <summary>The running worker for <paramref name="settings"/>, started on first use.</summary>
    public Task<FunctionsTestHost> HostAsync(WorkerSettings settings) =>
        _hosts.GetOrAdd(settings, s => new Lazy<Task<FunctionsTestHost>>(() => FunctionsTestHost.StartAsync(AppDirectory, s.Environment))).Value;

    /// <summary>Starts a worker of its own, for a test that expects it to fail or must not share it.</summary>
    public Task<FunctionsTestHost> StartAsync(IReadOnlyDictionary<string, string?> environment) =>
        FunctionsTestHost.StartAsync(AppDirectory, environment);

    public Task InitializeAsync() => PublishAsync();

    public async Task DisposeAsync()
    {
        foreach (var host in _hosts.Values.Where(h => h.IsValueCreated))
        {
            if (host.Value.IsCompletedSuccessfully)
            {
                await host.Value.Result.DisposeAsync();
            }
        }

        if (Directory.Exists(AppDirectory))
        {
            Directory.Delete(AppDirectory, recursive: true);
        }
    }

    private async Task PublishAsync()
    {
        var project = Path.Combine(RepoRoot(), "src", "SigningFunctions", "SigningFunctions.csproj");
        var start = new ProcessStartInfo("dotnet")
        {
            ArgumentList = { "publish", project, "--configuration", "Release", "--output", AppDirectory, "--nologo" },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };

        // The test host runs under MSBuild's environment; a nested build must not inherit its MSBuild settings.
        foreach (var name in start.Environment.Keys.Where(k => k.StartsWith("MSBuild", StringComparison.OrdinalIgnoreCase)).ToList())
        {
            start.Environment.Remove(name);
        }

        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";

        using var process = Process.Start(start)!;
        var output = new StringBuilder();
        process.OutputDataReceived += (_, e) => Append(output, e.Data);
        process.ErrorDataReceived += (_, e) => Append(output, e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        using var timeout = new CancellationTokenSource(PublishTimeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"dotnet publish did not finish within {PublishTimeout}.{Environment.NewLine}{Tail(output)}");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"dotnet publish exited with {process.ExitCode}.{Environment.NewLine}{Tail(output)}");
        }
    }

    private static void Append(StringBuilder output, string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (output)
        {
            output.AppendLine(line);
        }
    }

    private static string Tail(StringBuilder output)
    {
        lock (output)
        {
            var text = output.ToString();
            return text.Length <= 8000 ? text : text[^8000..];
        }
    }

    private static string RepoRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "SigningFunctions.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("SigningFunctions.sln not found above " + AppContext.BaseDirectory);
    }
}
