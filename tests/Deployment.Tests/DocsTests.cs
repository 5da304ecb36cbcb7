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
    public void The_guide_gives_the_load_test_a_host_key_because_it_reads_the_stats_function_too()
    {
        // A function key opens only its own function, and the k6 run reads /api/stats, a function of its own: with the
        // sign function's key it stopped at its first read of the stats with a 401.
        Assert.Contains("AuthorizationLevel.Function", Repo.Read("src/SigningFunctions/StatsFunction.cs"), StringComparison.Ordinal);
        var docs = Repo.Read("docs/deploy.md");
        var section = docs[docs.IndexOf("## Load-test it with k6", StringComparison.Ordinal)..];
        var run = section.IndexOf("loadtest/k6/run.sh\n", StringComparison.Ordinal);
        Assert.True(run > 0, "docs/deploy.md's k6 section runs no loadtest/k6/run.sh.");
        Assert.Matches(@"az functionapp keys list[^`]*--query functionKeys\.default", section[..run]);
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
