using System.Text.RegularExpressions;
using System.Xml.Linq;
using YamlDotNet.RepresentationModel;

namespace Deployment.Tests;

/// <summary>azure.yaml: what `azd up` provisions and deploys.</summary>
public sealed class AzureYamlTests
{
    private static readonly string[] PublishedCopyModes = ["PreserveNewest", "Always"];

    private static (string Name, YamlMappingNode Service) SingleService()
    {
        var services = Repo.Yaml("azure.yaml").Mapping("services");
        var (name, service) = Assert.Single(services.Entries());
        return (name, Assert.IsType<YamlMappingNode>(service));
    }

    [Fact]
    public void The_project_has_a_name_and_exactly_one_service()
    {
        var root = Repo.Yaml("azure.yaml");
        Assert.False(string.IsNullOrWhiteSpace(root.Scalar("name")), "azure.yaml has no name.");
        SingleService();
    }

    [Fact]
    public void The_service_is_the_Functions_project_hosted_as_a_dotnet_function()
    {
        var (name, service) = SingleService();
        Assert.Equal("function", service.Scalar("host"));
        Assert.Equal("dotnet", service.Scalar("language"));

        var project = service.Scalar("project");
        Assert.False(string.IsNullOrWhiteSpace(project), $"Service '{name}' has no project.");
        var resolved = Repo.PathOf(project!);
        Assert.Equal(Repo.PathOf("src/SigningFunctions"), resolved.TrimEnd(Path.DirectorySeparatorChar));
        Assert.True(File.Exists(Path.Combine(resolved, "SigningFunctions.csproj")), $"{project} holds no SigningFunctions.csproj.");
    }

    [Fact]
    public void The_project_it_points_at_is_a_Functions_v4_app()
    {
        var (_, service) = SingleService();
        var csproj = XDocument.Load(Path.Combine(Repo.PathOf(service.Scalar("project")!), "SigningFunctions.csproj"));
        Assert.Equal("v4", csproj.Descendants("AzureFunctionsVersion").Single().Value);
        Assert.Contains(csproj.Descendants("PackageReference"), r => (string?)r.Attribute("Include") == "Microsoft.Azure.Functions.Worker.Sdk");
    }

    [Fact]
    public void The_package_azd_deploys_carries_the_root_host_json_at_its_root()
    {
        // azd deploys what `dotnet publish` of the project writes. host.json lives at the repository root, so the
        // project must link it into the publish folder's root. tests/SigningFunctions.Tests/PublishOutputTests.cs
        // runs the real publish and finds it there; it needs nuget.org, so this checks the same link statically.
        var (_, service) = SingleService();
        var csproj = XDocument.Load(Path.Combine(Repo.PathOf(service.Scalar("project")!), "SigningFunctions.csproj"));
        var item = Assert.Single(
            csproj.Descendants().Where(e => e.Name.LocalName is "None" or "Content"),
            e => ((string?)e.Attribute("Include"))?.Replace('\\', '/').EndsWith("/host.json", StringComparison.Ordinal) == true);

        var linked = Path.GetFullPath(Path.Combine(Repo.PathOf(service.Scalar("project")!), ((string)item.Attribute("Include")!).Replace('\\', Path.DirectorySeparatorChar)));
        Assert.Equal(Repo.PathOf("host.json"), linked);
        Assert.Equal("host.json", (string?)item.Attribute("Link"));
        Assert.Contains((string?)item.Attribute("CopyToPublishDirectory"), PublishedCopyModes);
    }

    [Fact]
    public void Infrastructure_is_the_Bicep_in_infra_with_main_as_its_entry_point()
    {
        var infra = Repo.Yaml("azure.yaml").Child("infra") as YamlMappingNode;
        var provider = infra?.Scalar("provider") ?? "bicep";
        var path = infra?.Scalar("path") ?? "infra";
        var module = infra?.Scalar("module") ?? "main";

        Assert.Equal("bicep", provider);
        Assert.True(File.Exists(Repo.PathOf($"{path}/{module}.bicep")), $"{path}/{module}.bicep is missing.");
        Assert.True(File.Exists(Repo.PathOf($"{path}/{module}.parameters.json")), $"{path}/{module}.parameters.json is missing.");
    }

    [Fact]
    public void The_Function_App_carries_the_azd_service_name_tag_of_the_service()
    {
        var (name, _) = SingleService();
        var sites = Repo.BicepFiles().SelectMany(f => f.Resources("Microsoft.Web/sites")).ToList();
        var site = Assert.Single(sites);
        var tag = Regex.Match(site.Body, @"'azd-service-name'\s*:\s*'(?<name>[^']*)'");
        Assert.True(tag.Success, "The Function App has no literal azd-service-name tag.");
        Assert.Equal(name, tag.Groups["name"].Value);
    }
}
