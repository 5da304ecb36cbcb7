using System.Diagnostics;
using System.Reflection;

namespace Deployment.Tests;

/// <summary>
/// The Bicep CLI from the Azure.Bicep.CommandLine package, which the test project references where a build of it exists
/// for the machine (see Deployment.Tests.csproj).
/// </summary>
internal static class BicepCli
{
    /// <summary>The executable, or null where the package is not referenced.</summary>
    public static string? Path { get; } = typeof(BicepCli).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
        .FirstOrDefault(attribute => attribute.Key == "BicepPath")?.Value?.Replace('\\', System.IO.Path.DirectorySeparatorChar);

    /// <summary>Runs the CLI with <paramref name="arguments"/> from the repository's root.</summary>
    public static (int ExitCode, string Output, string Errors) Run(params string[] arguments)
    {
        Assert.NotNull(Path);
        var start = new ProcessStartInfo(Path)
        {
            WorkingDirectory = Repo.Root,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("bicep did not start.");
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromMinutes(2)))
        {
            process.Kill();
            throw new TimeoutException("bicep " + string.Join(' ', arguments) + " ran for more than 2 minutes.");
        }

        return (process.ExitCode, output.Result, errors.Result);
    }
}

/// <summary>A theory that runs the Bicep CLI: skipped, and reported as skipped, where the CLI is not referenced.</summary>
internal sealed class BicepCliTheoryAttribute : TheoryAttribute
{
    public BicepCliTheoryAttribute()
    {
        if (BicepCli.Path is null)
        {
            Skip = "The Bicep CLI's package is referenced on Linux x64 only.";
        }
    }
}
