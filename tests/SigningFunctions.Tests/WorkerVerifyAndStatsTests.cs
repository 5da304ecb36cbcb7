using System.Net;
using System.Text.Json;

namespace SigningFunctions.Tests;

/// <summary><c>POST /api/verify</c> and <c>GET /api/stats</c> through the published worker under the test host.</summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerVerifyAndStatsTests(PublishedWorker worker)
{
    [Theory]
    [InlineData(KnownAnswers.TwoWidgetsSignature, HttpStatusCode.OK)]
    [InlineData("0000000000000000000000000000000000000000000000000000000000000000", HttpStatusCode.Unauthorized)]
    public async Task Verify_answers_200_for_pythons_HMAC_and_401_for_another(string signature, HttpStatusCode expected)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/verify") { Content = KnownAnswers.Json(KnownAnswers.TwoWidgetsLoosely) };
        request.Headers.Add("X-Signature", "sha256=" + signature);

        using var response = await client.SendAsync(request);

        Assert.True(response.StatusCode == expected, $"{(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}{Environment.NewLine}{host.Output.Tail()}");
    }

    [Fact]
    public async Task Stats_come_from_the_worker_and_name_its_collector()
    {
        var host = await worker.HostAsync(WorkerSettings.SmallBudget);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };

        using var response = await client.GetAsync("/api/stats");

        Assert.True(response.StatusCode == HttpStatusCode.OK, $"{(int)response.StatusCode}{Environment.NewLine}{host.Output.Tail()}");
        using var stats = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var gc = stats.RootElement.GetProperty("gc");

        // The collector the project file chooses (server GC, concurrent; its comment says why), as the published
        // runtimeconfig.json asks for it, since the tests remove DOTNET_gcServer from the worker's environment: the
        // snapshot is the worker's, not this process's. On one processor the runtime would use workstation GC anyway.
        Assert.True(PublishedServerGc(), "The published runtimeconfig.json does not ask for server GC.");
        Assert.Equal(Environment.ProcessorCount > 1, gc.GetProperty("server").GetBoolean());
        Assert.True(gc.GetProperty("concurrent").GetBoolean());
        Assert.Equal(JsonValueKind.String, gc.GetProperty("latencyMode").ValueKind);

        // The app setting reached the worker through its environment, as app settings do in Azure.
        Assert.Equal(WorkerSettings.BudgetBytes, stats.RootElement.GetProperty("inFlight").GetProperty("limitBytes").GetInt64());
    }

    private bool PublishedServerGc()
    {
        using var config = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(worker.AppDirectory, "SigningFunctions.runtimeconfig.json")));
        return config.RootElement.GetProperty("runtimeOptions").TryGetProperty("configProperties", out var properties)
            && properties.TryGetProperty("System.GC.Server", out var server)
            && server.GetBoolean();
    }
}
