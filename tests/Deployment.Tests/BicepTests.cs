using System.Text.RegularExpressions;

namespace Deployment.Tests;

/// <summary>
/// infra/*.bicep: the facts the deployment depends on, read from the templates as text with comments blanked
/// (<see cref="BicepFile"/>). That they compile and lint clean is <see cref="BicepCompileTests"/>' part.
/// </summary>
public sealed partial class BicepTests
{
    private static BicepFile Resources() => Repo.Bicep("infra/resources.bicep");

    private static BicepFile MainBicep() => Repo.Bicep("infra/main.bicep");

    public static TheoryData<string> Files() => new(Repo.BicepFiles().Select(f => Repo.Relative(f.Path)));

    [Theory]
    [MemberData(nameof(Files))]
    public void Every_delimiter_string_and_comment_is_closed(string file)
    {
        var bicep = Repo.Bicep(file);
        Assert.True(bicep.Problems.Count == 0, $"{file}:{Environment.NewLine}{string.Join(Environment.NewLine, bicep.Problems)}");
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void Every_resource_names_a_provider_type_and_a_dated_API_version(string file)
    {
        foreach (var resource in Repo.Bicep(file).Declarations().Where(d => d.Kind == "resource"))
        {
            Assert.Matches(ResourceTypeAndVersion(), resource.Target);
        }
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void Modules_are_local_files_never_registry_references(string file)
    {
        var bicep = Repo.Bicep(file);
        Assert.DoesNotContain("br/public:", bicep.Code, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotMatch(RegistryReference(), bicep.Code);
        foreach (var module in bicep.Declarations().Where(d => d.Kind == "module"))
        {
            var path = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(bicep.Path)!, module.Target));
            Assert.True(File.Exists(path), $"{file}: module {module.Name} points at {module.Target}, which is not a file here.");
        }
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void No_app_setting_names_the_runtime_Flex_Consumption_sets_in_functionAppConfig(string file)
    {
        var code = Repo.Bicep(file).Code;
        Assert.DoesNotContain("FUNCTIONS_WORKER_RUNTIME", code, StringComparison.Ordinal);
        Assert.DoesNotContain("FUNCTIONS_EXTENSION_VERSION", code, StringComparison.Ordinal);
    }

    [Fact]
    public void The_entry_point_creates_a_resource_group_and_deploys_the_rest_into_it()
    {
        var main = MainBicep();
        Assert.Matches(@"^targetScope\s*=\s*'subscription'", main.Code.TrimStart());
        main.Resource("Microsoft.Resources/resourceGroups");
        var module = Assert.Single(main.Declarations(), d => d.Kind == "module");
        Assert.Equal("resources.bicep", module.Target);
    }

    [Fact]
    public void The_plan_is_Flex_Consumption()
    {
        var plan = Resources().Resource("Microsoft.Web/serverfarms");
        var sku = BicepFile.ObjectProperty(plan.Body, "sku");
        Assert.Matches(@"\bname\s*:\s*'FC1'", sku);
        Assert.Matches(@"\btier\s*:\s*'FlexConsumption'", sku);
        Assert.Matches(@"\breserved\s*:\s*true\b", plan.Body);
    }

    [Fact]
    public void The_app_runs_dotnet_isolated_10_from_functionAppConfig()
    {
        var site = Resources().Resource("Microsoft.Web/sites");
        Assert.Matches(@"\bkind\s*:\s*'functionapp,linux'", site.Body);
        Assert.Matches(@"\bserverFarmId\s*:\s*plan\.id\b", site.Body);
        var runtime = BicepFile.ObjectProperty(BicepFile.ObjectProperty(site.Body, "functionAppConfig"), "runtime");
        Assert.Matches(@"\bname\s*:\s*'dotnet-isolated'", runtime);
        Assert.Matches(@"\bversion\s*:\s*'10\.0'", runtime);
    }

    [Fact]
    public void The_app_is_HTTPS_only_with_TLS_1_2_and_no_FTP_or_basic_publishing_credentials()
    {
        var resources = Resources();
        var site = resources.Resource("Microsoft.Web/sites");
        Assert.Matches(@"\bhttpsOnly\s*:\s*true\b", site.Body);
        var siteConfig = BicepFile.ObjectProperty(site.Body, "siteConfig");
        Assert.Matches(@"\bminTlsVersion\s*:\s*'1\.2'", siteConfig);
        Assert.Matches(@"\bftpsState\s*:\s*'Disabled'", siteConfig);

        var policies = resources.Resources("Microsoft.Web/sites/basicPublishingCredentialsPolicies");
        foreach (var name in new[] { "ftp", "scm" })
        {
            var policy = Assert.Single(policies, p => Regex.IsMatch(p.Body, $@"\bname\s*:\s*'{name}'"));
            Assert.Matches(@"\bparent\s*:\s*functionApp\b", policy.Body);
            Assert.Matches(@"\ballow\s*:\s*false\b", policy.Body);
        }
    }

    [Fact]
    public void The_package_is_deployed_from_the_blob_container_through_the_identity()
    {
        var resources = Resources();
        var site = resources.Resource("Microsoft.Web/sites");
        var storage = BicepFile.ObjectProperty(BicepFile.ObjectProperty(site.Body, "deployment"), "storage");
        Assert.Matches(@"\btype\s*:\s*'blobContainer'", storage);
        var authentication = BicepFile.ObjectProperty(storage, "authentication");
        Assert.Matches(@"\btype\s*:\s*'UserAssignedIdentity'", authentication);
        Assert.Matches(@"\buserAssignedIdentityResourceId\s*:\s*identity\.id\b", authentication);
        resources.Resource("Microsoft.Storage/storageAccounts/blobServices/containers");
    }

    [Fact]
    public void Instance_memory_and_HTTP_concurrency_are_set_deliberately_with_the_reason_beside_them()
    {
        var resources = Resources();
        var scale = BicepFile.ObjectProperty(BicepFile.ObjectProperty(resources.Resource("Microsoft.Web/sites").Body, "functionAppConfig"), "scaleAndConcurrency");
        Assert.Matches(@"\binstanceMemoryMB\s*:\s*instanceMemoryMB\b", scale);
        Assert.Matches(@"\bperInstanceConcurrency\s*:\s*httpPerInstanceConcurrency\b", BicepFile.ObjectProperty(BicepFile.ObjectProperty(scale, "triggers"), "http"));
        Assert.Matches(@"\bmaximumInstanceCount\s*:\s*maximumInstanceCount\b", scale);

        foreach (var name in new[] { "instanceMemoryMB", "httpPerInstanceConcurrency" })
        {
            var param = Assert.Single(resources.Declarations(), d => d.Kind == "param" && d.Name == name);
            var before = resources.Text[..param.DecoratorsOffset].TrimEnd().Split('\n');
            var comment = before.Reverse().TakeWhile(l => l.TrimStart().StartsWith("//", StringComparison.Ordinal)).ToList();
            Assert.True(comment.Count >= 3, $"infra/resources.bicep: param {name} has no comment giving the reason for its value.");
        }

        // The values themselves are main.bicep's defaults (see ParametersTests for the parameters file).
        Assert.Equal("2048", ParamDefault(MainBicep(), "instanceMemoryMB"));
        Assert.Equal("8", ParamDefault(MainBicep(), "httpPerInstanceConcurrency"));
    }

    [Fact]
    public void Storage_takes_no_shared_keys_and_allows_no_public_blobs()
    {
        var storage = Resources().Resource("Microsoft.Storage/storageAccounts");
        Assert.Matches(@"\ballowSharedKeyAccess\s*:\s*false\b", storage.Body);
        Assert.Matches(@"\ballowBlobPublicAccess\s*:\s*false\b", storage.Body);
        Assert.Matches(@"\bminimumTlsVersion\s*:\s*'TLS1_2'", storage.Body);
        Assert.Matches(@"\bsupportsHttpsTrafficOnly\s*:\s*true\b", storage.Body);
    }

    [Fact]
    public void The_host_reaches_storage_through_the_identity_and_never_with_a_key()
    {
        var resources = Resources();
        var settings = AppSettings(resources);
        Assert.Matches(@"\bAzureWebJobsStorage__credential\s*:\s*'managedidentity'", settings);
        Assert.Matches(@"\bAzureWebJobsStorage__clientId\s*:\s*identity\.properties\.clientId\b", settings);
        Assert.Matches(@"\bAzureWebJobsStorage__blobServiceUri\s*:\s*storage\.properties\.primaryEndpoints\.blob\b", settings);
        Assert.DoesNotMatch(@"\bAzureWebJobsStorage\s*:", settings);

        foreach (var bicep in Repo.BicepFiles())
        {
            Assert.DoesNotMatch(@"\blistKeys\s*\(|AccountKey=|\blistSecrets\s*\(", bicep.Code);
        }
    }

    [Fact]
    public void Application_Insights_has_local_auth_off_and_the_identity_publishes_to_it()
    {
        var resources = Resources();
        var insights = resources.Resource("Microsoft.Insights/components");
        // The 2020-02-02 schema spells it DisableLocalAuth; ARM property names are case-insensitive.
        Assert.Matches(new Regex(@"\bdisableLocalAuth\s*:\s*true\b", RegexOptions.IgnoreCase), insights.Body);
        Assert.Matches(@"\bWorkspaceResourceId\s*:\s*logAnalytics\.id\b", insights.Body);
        resources.Resource("Microsoft.OperationalInsights/workspaces");

        var settings = AppSettings(resources);
        Assert.Matches(@"\bAPPLICATIONINSIGHTS_AUTHENTICATION_STRING\s*:\s*'ClientId=\$\{identity\.properties\.clientId\};Authorization=AAD'", settings);
        Assert.Matches(@"\bAPPLICATIONINSIGHTS_CONNECTION_STRING\s*:", settings);
    }

    [Fact]
    public void The_identity_holds_exactly_the_roles_it_needs_where_it_needs_them()
    {
        var resources = Resources();
        resources.Resource("Microsoft.ManagedIdentity/userAssignedIdentities");
        var site = resources.Resource("Microsoft.Web/sites");
        Assert.Matches(@"\btype\s*:\s*'UserAssigned'", BicepFile.ObjectProperty(site.Body, "identity"));

        var expected = new Dictionary<string, string>
        {
            ["b7e6dc6d-f1e8-4753-8033-0f276bb0955b"] = "storage", // Storage Blob Data Owner
            ["4633458b-17de-408a-b874-0445c86b69e6"] = "keyVault", // Key Vault Secrets User
            ["3913510d-42f4-4e42-8a64-420c390055eb"] = "applicationInsights", // Monitoring Metrics Publisher
        };
        var assignments = resources.Resources("Microsoft.Authorization/roleAssignments");
        Assert.Equal(expected.Count, assignments.Count);
        foreach (var (roleId, scope) in expected)
        {
            var roleVariable = Regex.Match(resources.Code, $@"(?<name>\w+)\s*:\s*'{roleId}'");
            Assert.True(roleVariable.Success, $"Role {roleId} is not declared.");
            var assignment = Assert.Single(assignments, a => a.Body.Contains($"roles.{roleVariable.Groups["name"].Value})", StringComparison.Ordinal));
            Assert.Matches($@"\bscope\s*:\s*{scope}\b", assignment.Body);
            Assert.Matches(@"\bprincipalId\s*:\s*identity\.properties\.principalId\b", assignment.Body);
            Assert.Matches(@"\bprincipalType\s*:\s*'ServicePrincipal'", assignment.Body);
        }
    }

    [Fact]
    public void The_signing_key_reaches_the_app_only_as_a_Key_Vault_reference_read_by_the_identity()
    {
        var resources = Resources();
        var vault = resources.Resource("Microsoft.KeyVault/vaults");
        Assert.Matches(@"\benableRbacAuthorization\s*:\s*true\b", vault.Body);

        var reference = Regex.Match(AppSettings(resources), @"\bSigning__Key\s*:\s*'@Microsoft\.KeyVault\(VaultName=\$\{keyVault\.name\};SecretName=\$\{(?<secret>\w+)\.name\}\)'");
        Assert.True(reference.Success, "Signing__Key is not a Key Vault reference to the vault's secret.");
        var secret = Assert.Single(resources.Resources("Microsoft.KeyVault/vaults/secrets"), s => s.Name == reference.Groups["secret"].Value);
        Assert.Matches(@"\bparent\s*:\s*keyVault\b", secret.Body);
        Assert.Matches(@"\bvalue\s*:\s*signingKey\b", secret.Body);

        var site = resources.Resource("Microsoft.Web/sites");
        Assert.Matches(@"\bkeyVaultReferenceIdentity\s*:\s*identity\.id\b", site.Body);

        // signingKey is used for the secret's value and nothing else.
        Assert.Single(Regex.Matches(resources.Code, @"\bsigningKey\b"), m => !IsInDeclarationOf(resources, m.Index, "signingKey"));
    }

    [Fact]
    public void A_rotation_s_previous_key_reaches_the_app_only_as_a_Key_Vault_reference_and_only_when_given()
    {
        var resources = Resources();
        var secretName = Regex.Match(resources.Code, @"var previousSigningKeySecretName = '(?<name>[^']+)'").Groups["name"].Value;
        Assert.NotEqual(string.Empty, secretName);

        // Its secret exists only while a rotation is under way, and holds the key.
        var secret = Assert.Single(resources.Resources("Microsoft.KeyVault/vaults/secrets"), s => s.Body.Contains("previousSigningKeySecretName", StringComparison.Ordinal));
        Assert.Matches(@"=\s*if\s*\(\s*!empty\(previousSigningKey\)\s*\)", secret.Body);
        Assert.Matches(@"\bparent\s*:\s*keyVault\b", secret.Body);
        Assert.Matches(@"\bvalue\s*:\s*previousSigningKey\b", secret.Body);

        // The app gets it as the key with id previous, by reference, only then; which key signs is always named.
        var settings = AppSettings(resources);
        Assert.Matches(
            @"\.\.\.\(empty\(previousSigningKey\)\s*\?\s*\{\s*\}\s*:\s*\{\s*Signing__Keys__previous\s*:\s*'@Microsoft\.KeyVault\(VaultName=\$\{keyVault\.name\};SecretName=\$\{previousSigningKeySecretName\}\)'\s*\}\s*\)",
            settings);
        Assert.Matches(@"\bSigning__ActiveKeyId\s*:\s*activeSigningKeyId\b", settings);

        // The ids it may name: Signing__Key's own (docs/keys.md: "Its id is `default`") and the previous key's.
        foreach (var file in new[] { Resources(), MainBicep() })
        {
            var active = Assert.Single(file.Declarations(), d => d.Kind == "param" && d.Name == "activeSigningKeyId");
            Assert.Matches(@"@allowed\(\[\s*'default'\s*'previous'\s*\]\)", active.Decorators);
            Assert.Equal("'default'", active.Value);
        }

        Assert.Contains("| `Signing:Key` (`Signing__Key`) | The single-key form. Its id is `default`. |", Repo.Read("docs/keys.md"), StringComparison.Ordinal);

        // previousSigningKey is used for the secret's value, and to ask whether it is empty, and nothing else.
        foreach (Match use in Regex.Matches(resources.Code, @"\bpreviousSigningKey\b"))
        {
            var before = resources.Code[..use.Index].TrimEnd();
            Assert.True(
                IsInDeclarationOf(resources, use.Index, "previousSigningKey") || before.EndsWith("empty(", StringComparison.Ordinal) || before.EndsWith("value:", StringComparison.Ordinal),
                $"previousSigningKey is used for something else: …{resources.Code[Math.Max(0, use.Index - 60)..use.Index]}");
        }
    }

    [Fact]
    public void In_Azure_the_app_runs_as_Production_where_the_development_key_is_refused()
    {
        // SigningOptionsValidator accepts the committed development key only in Development; no *_ENVIRONMENT setting
        // means Production. Flex Consumption does not set one itself.
        Assert.DoesNotMatch(@"\b(DOTNET|ASPNETCORE|AZURE_FUNCTIONS)_ENVIRONMENT\b", AppSettings(Resources()));
        foreach (var bicep in Repo.BicepFiles())
        {
            Assert.DoesNotContain("REVWLU9OTFkgc2lnbmluZyBrZXksIE5PVCBTRUNSRVQ=", bicep.Text, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("infra/main.bicep")]
    [InlineData("infra/resources.bicep")]
    public void The_signing_key_is_declared_where_the_deployment_passes_it(string file)
    {
        // The test below finds key parameters by name; this one keeps that name from changing under it unseen.
        Assert.Contains(Repo.Bicep(file).Declarations(), d => d.Kind == "param" && d.Name == "signingKey");
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void The_signing_key_is_a_secure_parameter_wherever_it_is_declared(string file)
    {
        // Keys, not key ids: a key's parameter may default to nothing (a rotation's previous key), never to a value.
        foreach (var param in Repo.Bicep(file).Declarations().Where(d => d.Kind == "param" && d.Name.EndsWith("key", StringComparison.OrdinalIgnoreCase)))
        {
            Assert.True(param.HasDecorator("secure"), $"{file}: param {param.Name} is not @secure().");
            Assert.True(param.Value is null or "''", $"{file}: param {param.Name} defaults to {param.Value}.");
        }
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void No_output_exposes_the_signing_key(string file)
    {
        foreach (var output in Repo.Bicep(file).Declarations().Where(d => d.Kind == "output"))
        {
            // The secret's name is fine to output; its value, the parameter, or any list*() call is not.
            Assert.DoesNotMatch(@"\b(signingKey|previousSigningKey)\b|\.properties\.value\b|\blist\w*\(", output.Body);
        }
    }

    [Fact]
    public void A_key_azd_generates_is_itself_valid_base64_of_at_least_32_bytes()
    {
        var signingKey = Assert.Single(MainBicep().Declarations(), d => d.Kind == "param" && d.Name == "signingKey");
        Assert.True(signingKey.HasDecorator("secure"));
        Assert.Matches(@"@minLength\(44\)", signingKey.Decorators);

        // azd's generator draws each character from the enabled classes; with noSpecial only A-Z, a-z and 0-9 remain,
        // all base64 digits, so a length that is a multiple of 4 decodes without padding.
        var metadata = signingKey.Decorators;
        Assert.Matches(@"\btype\s*:\s*'generate'", metadata);
        Assert.Matches(@"\bnoSpecial\s*:\s*true\b", metadata);
        var length = int.Parse(Regex.Match(metadata, @"\blength\s*:\s*(?<n>\d+)").Groups["n"].Value, System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(0, length % 4);
        Assert.True(length / 4 * 3 >= 32, $"A generated key of {length} characters decodes to {length / 4 * 3} bytes; the app needs 32.");
        var sample = new string('A', length - 2) + "z9";
        Assert.Equal(length / 4 * 3, Convert.FromBase64String(sample).Length);
    }

    internal static string ParamDefault(BicepFile file, string name) =>
        Assert.Single(file.Declarations(), d => d.Kind == "param" && d.Name == name).Value
        ?? throw new Xunit.Sdk.XunitException($"param {name} has no default.");

    private static string AppSettings(BicepFile resources)
    {
        var config = Assert.Single(resources.Resources("Microsoft.Web/sites/config"), c => Regex.IsMatch(c.Body, @"\bname\s*:\s*'appsettings'"));
        Assert.Matches(@"\bparent\s*:\s*functionApp\b", config.Body);
        Assert.DoesNotMatch(@"\bappSettings\s*:", BicepFile.ObjectProperty(resources.Resource("Microsoft.Web/sites").Body, "siteConfig"));
        return BicepFile.ObjectProperty(config.Body, "properties");
    }

    private static bool IsInDeclarationOf(BicepFile file, int offset, string name) =>
        file.Declarations().Any(d => d.Kind == "param" && d.Name == name && offset >= d.Offset && offset < d.Offset + d.Body.Length);

    [GeneratedRegex(@"^[A-Z][A-Za-z]*\.[A-Za-z.]+(/[A-Za-z]+)+@\d{4}-\d{2}-\d{2}(-preview)?$")]
    private static partial Regex ResourceTypeAndVersion();

    [GeneratedRegex(@"'(br|ts):[^']*'")]
    private static partial Regex RegistryReference();
}
