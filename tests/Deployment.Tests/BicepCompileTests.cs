using System.Text.Json;

namespace Deployment.Tests;

/// <summary>
/// infra/ compiles as azd compiles it, with the Bicep CLI, and without a warning or a linter finding: an error here is
/// one `azd provision` would meet only in Azure.
/// </summary>
public sealed class BicepCompileTests
{
    public static TheoryData<string> Templates() => [.. Repo.BicepFiles().Select(file => Repo.Relative(file.Path))];

    [BicepCliTheory]
    [MemberData(nameof(Templates))]
    public void The_template_builds_with_no_diagnostic(string template)
    {
        var (exitCode, output, errors) = BicepCli.Run("build", template, "--stdout");

        Assert.True(exitCode == 0 && errors.Length == 0, $"bicep build {template} exited {exitCode}:\n{errors}");
        using var arm = JsonDocument.Parse(output);
        // deploymentTemplate.json, or subscriptionDeploymentTemplate.json for main.bicep's subscription scope.
        Assert.Contains("deploymentTemplate.json", arm.RootElement.GetProperty("$schema").GetString(), StringComparison.OrdinalIgnoreCase);
        // An array of resources, or an object of them by symbolic name where the template asks for it.
        var resources = arm.RootElement.GetProperty("resources");
        Assert.True(resources.ValueKind == JsonValueKind.Array ? resources.GetArrayLength() > 0 : resources.EnumerateObject().Any(), $"{template} builds to no resource.");
    }

    [BicepCliTheory]
    [MemberData(nameof(Templates))]
    public void The_template_passes_the_linter(string template)
    {
        var (exitCode, output, errors) = BicepCli.Run("lint", template);

        Assert.True(exitCode == 0 && errors.Length == 0 && output.Length == 0, $"bicep lint {template} exited {exitCode}:\n{output}{errors}");
    }
}
