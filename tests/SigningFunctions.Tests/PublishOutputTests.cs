using System.Diagnostics;
using System.Text;
using System.Text.Json;

namespace SigningFunctions.Tests;

/// <summary>
/// Publishes src/SigningFunctions the way a deployment does and checks what the Functions host will read from the
/// folder: host.json (linked from the repo root), worker.config.json and functions.metadata (both written by
/// Microsoft.Azure.Functions.Worker.Sdk). Needs nuget.org for the restore; bounded by <see cref="PublishTimeout"/>.
/// </summary>
public sealed class PublishOutputTests : IDisposable
{
    private static readonly TimeSpan PublishTimeout = TimeSpan.FromMinutes(5);

    private readonly string _publishDir = Path.Combine(Path.GetTempPath(), "SigningFunctions.publish." + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_publishDir))
        {
            Directory.Delete(_publishDir, recursive: true);
        }
    }

    [Fact]
    [Trait("Category", "Publish")]
    public async Task Publish_output_holds_what_the_Functions_host_reads()
    {
        await PublishAsync();

        Assert.True(File.Exists(Path.Combine(_publishDir, "host.json")), "host.json is missing from the publish output.");
        using (var hostJson = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(_publishDir, "host.json"))))
        {
            Assert.Equal("2.0", hostJson.RootElement.GetProperty("version").GetString());
        }

        // The Worker SDK fills in its worker.config.json template: {"description":{"language":…,"defaultWorkerPath":…}}.
        using (var workerConfig = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(_publishDir, "worker.config.json"))))
        {
            var description = workerConfig.RootElement.GetProperty("description");
            Assert.Equal("dotnet-isolated", description.GetProperty("language").GetString());
            Assert.Equal("SigningFunctions.dll", description.GetProperty("defaultWorkerPath").GetString());
        }

        // functions.metadata is a JSON array with one object per function, camelCased by the SDK's naming policy:
        // {"name","scriptFile","entryPoint","language","properties","bindings":[{"name","type","direction",…}]}.
        // Trigger attribute values are written as they are declared: constructor arguments under their parameter
        // names (authLevel, methods), enums by name ("Function"), properties camelCased (route).
        using var metadata = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(_publishDir, "functions.metadata")));
        var sign = Assert.Single(metadata.RootElement.EnumerateArray(), f => f.GetProperty("name").GetString() == "sign");
        Assert.Equal("SigningFunctions.dll", sign.GetProperty("scriptFile").GetString());
        Assert.Equal("SigningFunctions.SignFunction.RunAsync", sign.GetProperty("entryPoint").GetString());

        var bindings = sign.GetProperty("bindings").EnumerateArray().ToList();
        var trigger = Assert.Single(bindings, b => IsType(b, "httpTrigger"));
        Assert.Equal("In", trigger.GetProperty("direction").GetString(), ignoreCase: true);
        Assert.Equal("sign", trigger.GetProperty("route").GetString());
        Assert.Equal("function", trigger.GetProperty("authLevel").GetString(), ignoreCase: true);
        Assert.Contains(trigger.GetProperty("methods").EnumerateArray(), m => string.Equals(m.GetString(), "post", StringComparison.OrdinalIgnoreCase));

        // The Task<IResult> return value becomes the HTTP response: an "http" output binding named $return.
        var output = Assert.Single(bindings, b => IsType(b, "http"));
        Assert.Equal("$return", output.GetProperty("name").GetString());
        Assert.Equal("Out", output.GetProperty("direction").GetString(), ignoreCase: true);
    }

    private static bool IsType(JsonElement binding, string type) =>
        string.Equals(binding.GetProperty("type").GetString(), type, StringComparison.OrdinalIgnoreCase);

    private async Task PublishAsync()
    {
        var project = Path.Combine(RepoRoot(), "src", "SigningFunctions", "SigningFunctions.csproj");
        var start = new ProcessStartInfo("dotnet")
        {
            ArgumentList = { "publish", project, "--configuration", "Release", "--output", _publishDir, "--nologo" },
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
            Assert.Fail($"dotnet publish did not finish within {PublishTimeout}.{Environment.NewLine}{Tail(output)}");
        }

        Assert.True(process.ExitCode == 0, $"dotnet publish exited with {process.ExitCode}.{Environment.NewLine}{Tail(output)}");
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
