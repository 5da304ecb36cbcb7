using System.Text.Json;

namespace SigningFunctions.TestHost;

/// <summary>
/// How the host starts a worker, read from the <c>worker.config.json</c> that Microsoft.Azure.Functions.Worker.Sdk
/// writes into the publish folder: <c>description.defaultExecutablePath</c> (<c>dotnet</c>) with its
/// <c>arguments</c>, then <c>defaultWorkerPath</c> (the app's dll) with its <c>workerArguments</c>. Reading the file,
/// instead of assuming <c>dotnet SigningFunctions.dll</c>, is what makes the tests fail if the published app stops
/// describing itself as the host expects.
/// </summary>
/// <param name="Executable">The program to run; <c>dotnet</c> is the muxer that runs the tests, when known.</param>
/// <param name="Arguments">Every argument before the host's own connection arguments.</param>
public sealed record WorkerLaunch(string Executable, IReadOnlyList<string> Arguments)
{
    /// <summary>Reads <c>worker.config.json</c> in <paramref name="appDirectory"/>.</summary>
    /// <param name="appDirectory">The published app.</param>
    /// <returns>The command line before the connection arguments.</returns>
    /// <exception cref="InvalidOperationException">The file is missing or does not name the worker.</exception>
    public static WorkerLaunch Read(string appDirectory)
    {
        var path = Path.Combine(appDirectory, "worker.config.json");
        if (!File.Exists(path))
        {
            throw new InvalidOperationException($"{path} not found: pass the folder 'dotnet publish' wrote the Functions app to.");
        }

        using var config = JsonDocument.Parse(File.ReadAllBytes(path));
        var description = config.RootElement.GetProperty("description");
        var executable = StringOrNull(description, "defaultExecutablePath")
            ?? throw new InvalidOperationException($"{path} has no description.defaultExecutablePath.");
        var workerPath = StringOrNull(description, "defaultWorkerPath")
            ?? throw new InvalidOperationException($"{path} has no description.defaultWorkerPath.");

        var arguments = new List<string>(Strings(description, "arguments"))
        {
            Path.Combine(appDirectory, workerPath),
        };
        arguments.AddRange(Strings(description, "workerArguments"));
        return new WorkerLaunch(ResolveExecutable(executable), arguments);
    }

    // 'dotnet' is found on PATH by the host; under 'dotnet test' PATH may lack it, but DOTNET_HOST_PATH names the muxer
    // that runs us, which is the one that should run the worker.
    private static string ResolveExecutable(string executable) =>
        executable == "dotnet" && Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } muxer && File.Exists(muxer)
            ? muxer
            : executable;

    private static string? StringOrNull(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;

    private static IEnumerable<string> Strings(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Array
            ? value.EnumerateArray().Select(a => a.GetString()).OfType<string>().Where(a => a.Length > 0)
            : [];
}
