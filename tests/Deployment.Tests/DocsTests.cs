using System.Text.RegularExpressions;

namespace Deployment.Tests;

/// <summary>docs/deploy.md and the README's pointer to it stay in step with the files they describe.</summary>
public sealed partial class DocsTests
{
    [Fact]
    public void The_README_has_a_Deploy_to_Azure_section_that_links_the_guide()
    {
        var readme = Repo.Read("README.md");
        var heading = DeployHeading().Match(readme);
        Assert.True(heading.Success, "README.md has no '## Deploy to Azure' section.");
        var section = readme[heading.Index..];
        var next = Regex.Match(section[heading.Length..], @"^## ", RegexOptions.Multiline);
        section = next.Success ? section[..(heading.Length + next.Index)] : section;
        Assert.Contains("(docs/deploy.md)", section, StringComparison.Ordinal);
    }

    [Fact]
    public void The_guide_names_the_secret_that_holds_the_key_as_the_template_does()
    {
        var secretName = Regex.Match(Repo.Read("infra/resources.bicep"), @"var signingKeySecretName = '(?<name>[^']+)'").Groups["name"].Value;
        Assert.False(string.IsNullOrEmpty(secretName));
        Assert.Contains($"`{secretName}`", Repo.Read("docs/deploy.md"), StringComparison.Ordinal);
    }

    [Fact]
    public void The_guide_gives_the_load_test_command_with_the_k6_script_and_its_settings()
    {
        var docs = Repo.Read("docs/deploy.md");
        foreach (var expected in new[] { "azd up", "loadtest/k6/sign.js", "FUNCTION_KEY", "BASE_URL", "STRATEGIES", "RATE", "DURATION", "WIDGETS", "src/Signing.Payload" })
        {
            Assert.Contains(expected, docs, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void The_guide_states_the_concurrency_and_memory_the_template_sets()
    {
        var docs = Repo.Read("docs/deploy.md");
        var main = Repo.Bicep("infra/main.bicep");
        Assert.Contains($"{BicepTests.ParamDefault(main, "instanceMemoryMB")} MB", docs, StringComparison.Ordinal);
        Assert.Matches($@"\b{BicepTests.ParamDefault(main, "httpPerInstanceConcurrency")} concurrent", docs);
    }

    [GeneratedRegex(@"^## Deploy to Azure\s*$", RegexOptions.Multiline)]
    private static partial Regex DeployHeading();
}
