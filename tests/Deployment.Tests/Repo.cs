using System.Text.Json;
using YamlDotNet.RepresentationModel;

namespace Deployment.Tests;

/// <summary>Paths and parsed files of the repository under test, found from the test assembly's folder.</summary>
internal static class Repo
{
    private static readonly Lazy<string> LazyRoot = new(FindRoot);

    /// <summary>The folder that holds SigningFunctions.sln.</summary>
    public static string Root => LazyRoot.Value;

    public static string PathOf(string relative) => Path.GetFullPath(Path.Combine(Root, relative.Replace('/', Path.DirectorySeparatorChar)));

    public static string Read(string relative)
    {
        var path = PathOf(relative);
        Assert.True(File.Exists(path), $"{relative} is missing.");
        return File.ReadAllText(path);
    }

    /// <summary>The first YAML document of a file, which must be a mapping.</summary>
    public static YamlMappingNode Yaml(string relative)
    {
        var stream = new YamlStream();
        using (var reader = new StringReader(Read(relative)))
        {
            stream.Load(reader);
        }

        Assert.Single(stream.Documents);
        return Assert.IsType<YamlMappingNode>(stream.Documents[0].RootNode);
    }

    public static JsonDocument Json(string relative) => JsonDocument.Parse(Read(relative));

    /// <summary>Every Bicep file under infra/, parsed.</summary>
    public static IReadOnlyList<BicepFile> BicepFiles()
    {
        var infra = PathOf("infra");
        Assert.True(Directory.Exists(infra), "infra/ is missing.");
        var files = Directory.GetFiles(infra, "*.bicep", SearchOption.AllDirectories).Order(StringComparer.Ordinal).Select(BicepFile.Load).ToList();
        Assert.NotEmpty(files);
        return files;
    }

    public static BicepFile Bicep(string relative) => BicepFile.Load(PathOf(relative));

    /// <summary>A path relative to the root, with forward slashes, for messages and comparisons.</summary>
    public static string Relative(string path) => Path.GetRelativePath(Root, path).Replace(Path.DirectorySeparatorChar, '/');

    private static string FindRoot()
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

/// <summary>Navigation over YamlDotNet's representation model that fails the test with the path it was after.</summary>
internal static class YamlNodes
{
    public static YamlNode? Child(this YamlMappingNode node, string key) =>
        node.Children.TryGetValue(new YamlScalarNode(key), out var child) ? child : null;

    public static YamlMappingNode Mapping(this YamlMappingNode node, string key) =>
        Assert.IsType<YamlMappingNode>(node.Child(key) ?? throw new Xunit.Sdk.XunitException($"No '{key}' mapping."));

    public static YamlSequenceNode Sequence(this YamlMappingNode node, string key) =>
        Assert.IsType<YamlSequenceNode>(node.Child(key) ?? throw new Xunit.Sdk.XunitException($"No '{key}' sequence."));

    public static string? Scalar(this YamlMappingNode node, string key) => (node.Child(key) as YamlScalarNode)?.Value;

    /// <summary>A scalar, or each item of a sequence of scalars, as strings (GitHub accepts both for many keys).</summary>
    public static IReadOnlyList<string> Strings(this YamlMappingNode node, string key) => node.Child(key) switch
    {
        YamlScalarNode scalar => [scalar.Value ?? string.Empty],
        YamlSequenceNode sequence => sequence.Children.OfType<YamlScalarNode>().Select(s => s.Value ?? string.Empty).ToList(),
        _ => [],
    };

    public static IEnumerable<(string Key, YamlNode Value)> Entries(this YamlMappingNode node) =>
        node.Children.Select(pair => (((YamlScalarNode)pair.Key).Value ?? string.Empty, pair.Value));
}
