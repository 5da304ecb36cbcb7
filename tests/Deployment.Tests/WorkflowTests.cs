using System.Text.RegularExpressions;
using YamlDotNet.RepresentationModel;

namespace Deployment.Tests;

/// <summary>.github/workflows/azure-dev.yml: build and test every pull request, deploy main with azd over OIDC.</summary>
public sealed partial class WorkflowTests
{
    internal const string WorkflowPath = ".github/workflows/azure-dev.yml";

    private static YamlMappingNode Workflow() => Repo.Yaml(WorkflowPath);

    private static YamlMappingNode Job(string name) => Workflow().Mapping("jobs").Mapping(name);

    private static List<YamlMappingNode> Steps(YamlMappingNode job) =>
        job.Sequence("steps").Children.Select(s => Assert.IsType<YamlMappingNode>(s)).ToList();

    private static IEnumerable<(string Job, YamlMappingNode Step)> AllSteps() =>
        Workflow().Mapping("jobs").Entries().SelectMany(j => Steps((YamlMappingNode)j.Value).Select(s => (j.Key, s)));

    private static string Run(YamlMappingNode step) => step.Scalar("run")?.Trim() ?? string.Empty;

    /// <summary>The workflow as it would be written out again: every key and scalar, for text searches.</summary>
    private static string Flatten(YamlNode node) => node switch
    {
        YamlScalarNode scalar => scalar.Value ?? string.Empty,
        YamlSequenceNode sequence => string.Join('\n', sequence.Children.Select(Flatten)),
        YamlMappingNode mapping => string.Join('\n', mapping.Children.Select(p => Flatten(p.Key) + ": " + Flatten(p.Value))),
        _ => string.Empty,
    };

    [Fact]
    public void It_runs_on_pull_requests_and_on_pushes_to_main()
    {
        // "on" stays a string key here: YamlDotNet's representation model does not read YAML 1.1 booleans.
        var on = Workflow().Mapping("on");
        Assert.NotNull(on.Child("pull_request"));
        var push = on.Mapping("push");
        Assert.Contains("main", push.Strings("branches"));
    }

    [Fact]
    public void The_build_job_runs_the_CI_script_itself()
    {
        var runs = Steps(Job("build")).Select(Run).ToList();
        Assert.Contains("bash .ci/run", runs);
    }

    [Fact]
    public void The_CI_script_is_what_builds_tests_and_checks_formatting()
    {
        // Calling .ci/run makes the workflow's commands those of .ci/run by construction; this pins what they are.
        var script = Repo.Read(".ci/run");
        Assert.Matches(CiTest(), script);
        Assert.Matches(CiFormat(), script);
        Assert.Contains("SigningFunctions.sln", script, StringComparison.Ordinal);
        Assert.Contains("SigningFunctions.Core.slnf", script, StringComparison.Ordinal);
    }

    [Fact]
    public void No_step_runs_its_own_dotnet_build_test_or_format()
    {
        // Any such step would be a second, drifting copy of .ci/run.
        foreach (var (job, step) in AllSteps())
        {
            Assert.DoesNotMatch(OwnDotnetCommand(), Run(step));
            Assert.False(Run(step).Length > 0 && job == "build" && Run(step) != "bash .ci/run", $"Build job step '{step.Scalar("name")}' runs '{Run(step)}'; the build job should only set up .NET and call .ci/run.");
        }
    }

    [Fact]
    public void Only_pushes_to_main_deploy_and_only_after_the_build_passed()
    {
        var deploy = Job("deploy");
        Assert.Contains("build", deploy.Strings("needs"));
        var condition = deploy.Scalar("if") ?? string.Empty;
        Assert.Contains("github.event_name == 'push'", condition, StringComparison.Ordinal);
        Assert.Contains("github.ref == 'refs/heads/main'", condition, StringComparison.Ordinal);
    }

    [Fact]
    public void Only_the_deploy_job_may_request_an_OpenID_Connect_token()
    {
        Assert.Equal("write", Job("deploy").Mapping("permissions").Scalar("id-token"));

        var top = Workflow().Child("permissions") as YamlMappingNode;
        Assert.NotNull(top);
        Assert.NotEqual("write", top.Scalar("id-token"));
        Assert.Equal("read", top.Scalar("contents"));

        var buildPermissions = Job("build").Child("permissions") as YamlMappingNode;
        Assert.NotEqual("write", buildPermissions?.Scalar("id-token"));
    }

    [Fact]
    public void The_deploy_job_signs_in_with_federated_credentials_then_provisions_and_deploys_with_azd()
    {
        var runs = Steps(Job("deploy")).Select(Run).Where(r => r.Length > 0).ToList();

        var login = runs.FindIndex(r => r.StartsWith("azd auth login", StringComparison.Ordinal));
        Assert.True(login >= 0, "No 'azd auth login' step.");
        Assert.Contains("--federated-credential-provider \"github\"", runs[login], StringComparison.Ordinal);
        Assert.DoesNotContain("--client-secret", runs[login], StringComparison.Ordinal);

        var provision = runs.IndexOf("azd provision --no-prompt");
        var deploy = runs.IndexOf("azd deploy --no-prompt");
        Assert.True(login < provision && provision < deploy, $"Expected login, then 'azd provision --no-prompt', then 'azd deploy --no-prompt'; got: {string.Join(" | ", runs)}");
    }

    [Fact]
    public void The_signing_key_secret_reaches_only_the_steps_that_need_it()
    {
        var workflow = Workflow();
        Assert.DoesNotContain("secrets.", Flatten(workflow.Child("env") ?? new YamlMappingNode()), StringComparison.Ordinal);
        foreach (var (job, node) in workflow.Mapping("jobs").Entries())
        {
            var jobNode = (YamlMappingNode)node;
            Assert.False(Flatten(jobNode.Child("env") ?? new YamlMappingNode()).Contains("secrets.", StringComparison.Ordinal), $"Job '{job}' puts a secret in every step's environment.");
            foreach (var step in Steps(jobNode).Where(s => s.Child("uses") is not null))
            {
                // Third-party actions never see a secret.
                Assert.DoesNotContain("secrets.", Flatten(step), StringComparison.Ordinal);
            }
        }

        var provision = Steps(Job("deploy")).Single(s => Run(s) == "azd provision --no-prompt");
        Assert.Equal("${{ secrets.SIGNING_KEY }}", provision.Mapping("env").Scalar("SIGNING_KEY"));
    }

    [Fact]
    public void A_missing_signing_key_stops_the_deploy_before_azd_provision_could_generate_a_new_one()
    {
        var steps = Steps(Job("deploy"));
        var check = steps.FindIndex(s => Run(s).Contains("[ -z \"$SIGNING_KEY\" ]", StringComparison.Ordinal) && Run(s).Contains("exit", StringComparison.Ordinal));
        var provision = steps.FindIndex(s => Run(s) == "azd provision --no-prompt");
        Assert.True(check >= 0 && check < provision, "No step before 'azd provision' fails when SIGNING_KEY is empty.");
    }

    [Fact]
    public void Every_variable_and_secret_it_uses_is_documented()
    {
        // Each one has a row in docs/deploy.md's table, saying whether it is a repository variable or a secret.
        var text = Repo.Read(WorkflowPath);
        var used = ContextReference().Matches(text).Select(m => (m.Groups["kind"].Value, m.Groups["name"].Value)).Distinct().ToList();
        Assert.NotEmpty(used);
        var docs = Repo.Read("docs/deploy.md");
        foreach (var (context, name) in used)
        {
            var kind = context == "vars" ? "variable" : "secret";
            Assert.True(
                Regex.IsMatch(docs, $@"^\|\s*`{name}`\s*\|\s*{kind}\s*\|", RegexOptions.Multiline),
                $"docs/deploy.md has no table row '| `{name}` | {kind} |', and {WorkflowPath} uses {context}.{name}.");
        }
    }

    [GeneratedRegex(@"^\s*dotnet test ""\$solution""", RegexOptions.Multiline)]
    private static partial Regex CiTest();

    [GeneratedRegex(@"^\s*dotnet format ""\$solution"" --verify-no-changes\s*$", RegexOptions.Multiline)]
    private static partial Regex CiFormat();

    [GeneratedRegex(@"\bdotnet\s+(test|build|format|restore|publish)\b")]
    private static partial Regex OwnDotnetCommand();

    [GeneratedRegex(@"\$\{\{\s*(?<kind>vars|secrets)\.(?<name>[A-Za-z_][A-Za-z0-9_]*)\s*\}\}")]
    private static partial Regex ContextReference();
}
