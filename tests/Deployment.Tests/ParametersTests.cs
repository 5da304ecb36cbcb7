using System.Text.Json;
using System.Text.RegularExpressions;

namespace Deployment.Tests;

/// <summary>infra/main.parameters.json: how azd fills main.bicep's parameters from the azd environment.</summary>
public sealed partial class ParametersTests
{
    private static Dictionary<string, string> FileValues()
    {
        using var json = Repo.Json("infra/main.parameters.json");
        return json.RootElement.GetProperty("parameters").EnumerateObject()
            .ToDictionary(p => p.Name, p => p.Value.GetProperty("value").GetString() ?? string.Empty, StringComparer.Ordinal);
    }

    private static List<BicepFile.Declaration> MainParams() =>
        Repo.Bicep("infra/main.bicep").Declarations().Where(d => d.Kind == "param").ToList();

    [Fact]
    public void Every_parameter_in_the_file_is_declared_in_main_bicep()
    {
        var declared = MainParams().Select(p => p.Name).ToHashSet(StringComparer.Ordinal);
        foreach (var name in FileValues().Keys)
        {
            Assert.True(declared.Contains(name), $"main.parameters.json sets '{name}', which main.bicep does not declare.");
        }
    }

    [Fact]
    public void Every_required_parameter_is_mapped_to_an_environment_variable()
    {
        var values = FileValues();
        foreach (var param in MainParams().Where(p => p.Value is null))
        {
            Assert.True(values.TryGetValue(param.Name, out var value), $"Required parameter '{param.Name}' is not in main.parameters.json.");
            Assert.Matches(EnvironmentReference(), value);
        }
    }

    [Theory]
    [InlineData("environmentName", "AZURE_ENV_NAME")]
    [InlineData("location", "AZURE_LOCATION")]
    [InlineData("signingKey", "SIGNING_KEY")]
    [InlineData("previousSigningKey", "PREVIOUS_SIGNING_KEY")]
    public void Parameters_read_the_environment_variables_the_docs_name(string parameter, string variable)
    {
        Assert.Equal($"${{{variable}}}", FileValues()[parameter]);
    }

    [Fact]
    public void Defaults_in_the_file_match_the_defaults_in_main_bicep()
    {
        // "${NAME=default}" is what azd uses when NAME is unset; it must not drift from the Bicep default.
        var main = Repo.Bicep("infra/main.bicep");
        foreach (var (name, value) in FileValues())
        {
            var match = EnvironmentReference().Match(value);
            if (match.Groups["default"].Success)
            {
                // A string's default is quoted in Bicep and bare in the file.
                Assert.Equal(BicepTests.ParamDefault(main, name).Trim('\''), match.Groups["default"].Value);
            }
        }
    }

    [Fact]
    public void The_file_holds_no_secret()
    {
        foreach (var (name, value) in FileValues())
        {
            Assert.True(EnvironmentReference().IsMatch(value) || !name.Contains("key", StringComparison.OrdinalIgnoreCase), $"'{name}' has a literal value in main.parameters.json.");
        }

        Assert.DoesNotContain("REVWLU9OTFkgc2lnbmluZyBrZXksIE5PVCBTRUNSRVQ=", Repo.Read("infra/main.parameters.json"), StringComparison.Ordinal);
    }

    [GeneratedRegex(@"^\$\{(?<name>[A-Z_][A-Z0-9_]*)(=(?<default>[^}]*))?\}$")]
    private static partial Regex EnvironmentReference();
}
