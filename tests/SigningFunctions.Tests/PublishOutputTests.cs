using System.Text.Json;

namespace SigningFunctions.Tests;

/// <summary>
/// Checks what the Functions host will read from the publish output (<see cref="PublishedWorker"/>, published once
/// for the run): host.json (linked from the repo root), worker.config.json and functions.metadata (both written by
/// Microsoft.Azure.Functions.Worker.Sdk).
/// </summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class PublishOutputTests(PublishedWorker worker)
{
    [Fact]
    [Trait("Category", "Publish")]
    public void Publish_output_holds_what_the_Functions_host_reads()
    {
        Assert.True(File.Exists(Path.Combine(worker.AppDirectory, "host.json")), "host.json is missing from the publish output.");
        using (var hostJson = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(worker.AppDirectory, "host.json"))))
        {
            Assert.Equal("2.0", hostJson.RootElement.GetProperty("version").GetString());
        }

        // The Worker SDK fills in its worker.config.json template: {"description":{"language":…,"defaultWorkerPath":…}}.
        using (var workerConfig = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(worker.AppDirectory, "worker.config.json"))))
        {
            var description = workerConfig.RootElement.GetProperty("description");
            Assert.Equal("dotnet-isolated", description.GetProperty("language").GetString());
            Assert.Equal("SigningFunctions.dll", description.GetProperty("defaultWorkerPath").GetString());
        }

        // functions.metadata is a JSON array with one object per function, camelCased by the SDK's naming policy:
        // {"name","scriptFile","entryPoint","language","properties","bindings":[{"name","type","direction",…}]}.
        // Trigger attribute values are written as they are declared: constructor arguments under their parameter
        // names (authLevel, methods), enums by name ("Function"), properties camelCased (route).
        using var metadata = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(worker.AppDirectory, "functions.metadata")));
        var sign = Assert.Single(metadata.RootElement.EnumerateArray(), f => f.GetProperty("name").GetString() == "sign");
        Assert.Equal("SigningFunctions.dll", sign.GetProperty("scriptFile").GetString());
        Assert.Equal("SigningFunctions.SignFunction.RunAsync", sign.GetProperty("entryPoint").GetString());

        var bindings = sign.GetProperty("bindings").EnumerateArray().ToList();
        var trigger = Assert.Single(bindings, b => IsType(b, "httpTrigger"));
        Assert.Equal("In", trigger.GetProperty("direction").GetString(), ignoreCase: true);
        Assert.Equal("sign", trigger.GetProperty("route").GetString());
        Assert.Equal("function", trigger.GetProperty("authLevel").GetString(), ignoreCase: true);
        Assert.Contains(trigger.GetProperty("methods").EnumerateArray(), m => string.Equals(m.GetString(), "post", StringComparison.OrdinalIgnoreCase));

        // The Task<IResult> return value becomes the HTTP response: an "http" output binding named $return.
        var output = Assert.Single(bindings, b => IsType(b, "http"));
        Assert.Equal("$return", output.GetProperty("name").GetString());
        Assert.Equal("Out", output.GetProperty("direction").GetString(), ignoreCase: true);
    }

    private static bool IsType(JsonElement binding, string type) =>
        string.Equals(binding.GetProperty("type").GetString(), type, StringComparison.OrdinalIgnoreCase);
}
