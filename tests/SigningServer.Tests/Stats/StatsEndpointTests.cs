using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Memory;
using Signing.Http.Requests;
using Signing.Http.Stats;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Stats;

/// <summary><c>GET /api/stats</c>: its shape, and totals that move exactly with the requests each strategy served.</summary>
public sealed class StatsEndpointTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Fact]
    public async Task Stats_is_uncached_json_with_the_documented_members()
    {
        using var client = factory.CreateClient();

        using var response = await client.GetAsync("/api/stats");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        Assert.True(response.Headers.CacheControl?.NoStore, "Cache-Control: no-store");
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var root = document.RootElement;
        Assert.Equal(["gc", "inFlight", "instance", "process", "strategies", "streamPool", "timestamp"], Names(root));
        Assert.Equal(["id", "processId", "processStartTime"], Names(root.GetProperty("instance")));
        Assert.Equal(
            ["collections", "concurrent", "lastCollection", "latencyMode", "pauseTimePercentage", "server", "totalAllocatedBytes", "totalPauseMilliseconds"],
            Names(root.GetProperty("gc")));
        Assert.Equal(["gen0", "gen1", "gen2"], Names(root.GetProperty("gc").GetProperty("collections")));
        Assert.Equal(["gen0", "gen1", "gen2", "loh", "poh"], Names(root.GetProperty("gc").GetProperty("lastCollection").GetProperty("generations")));
        Assert.Equal(
            ["fragmentationAfterBytes", "fragmentationBeforeBytes", "sizeAfterBytes", "sizeBeforeBytes"],
            Names(root.GetProperty("gc").GetProperty("lastCollection").GetProperty("generations").GetProperty("loh")));
        Assert.Equal(
            [
                "blockSize", "blocksCreated", "buffersDiscarded", "largeBuffersCreated", "largePoolFreeBytes", "largePoolInUseBytes",
                "maximumLargePoolFreeBytes", "maximumSmallPoolFreeBytes", "smallPoolFreeBytes", "smallPoolInUseBytes",
                "streamsDoubleDisposed", "streamsFinalized", "streamsOverCapacity",
            ],
            Names(root.GetProperty("streamPool")));
        Assert.Equal(
            ["errors", "name", "parseAllocatedBytes", "parseSeconds", "refused", "requests", "signAllocatedBytes", "signSeconds"],
            Names(root.GetProperty("strategies")[0]));
    }

    [Fact]
    public async Task Stats_describe_this_process_and_its_pool()
    {
        using var client = factory.CreateClient();

        var stats = await ReadAsync(client);

        Assert.Equal(System.Runtime.GCSettings.IsServerGC, stats.Gc.Server);
        Assert.Equal(System.Runtime.GCSettings.LatencyMode.ToString(), stats.Gc.LatencyMode);
        Assert.True(stats.Process.WorkingSetBytes > 0);
        Assert.True(stats.Process.PeakWorkingSetBytes >= stats.Process.WorkingSetBytes);
        Assert.Equal(Environment.ProcessorCount, stats.Process.ProcessorCount);
        Assert.Equal(0, stats.StreamPool.SmallPoolInUseBytes);
        Assert.Equal(0, stats.StreamPool.LargePoolInUseBytes);
        Assert.Equal(factory.Pool.Options.MaximumSmallPoolFreeBytes, stats.StreamPool.MaximumSmallPoolFreeBytes);
        Assert.Equal(factory.Pool.Options.MaximumLargePoolFreeBytes, stats.StreamPool.MaximumLargePoolFreeBytes);
        Assert.Equal(factory.Pool.Options.BlockSize, stats.StreamPool.BlockSize);
        Assert.Equal(0, stats.StreamPool.StreamsDoubleDisposed);
        Assert.Equal(0, stats.StreamPool.StreamsFinalized);
        Assert.Equal(factory.StrategyNames, stats.Strategies.Select(s => s.Name));
        Assert.InRange(stats.Timestamp, DateTimeOffset.UtcNow.AddMinutes(-1), DateTimeOffset.UtcNow.AddMinutes(1));
        Assert.Equal(factory.Services.GetRequiredService<InstanceStats>(), stats.Instance);
        Assert.Equal(Environment.ProcessId, stats.Instance.ProcessId);
    }

    [Fact]
    public async Task Totals_count_each_strategys_requests_errors_and_the_allocations_its_responses_reported()
    {
        using var client = factory.CreateClient();
        var strategy = factory.Strategies.Names[^1];
        var before = await ReadAsync(client);

        long reported = 0;
        for (var i = 0; i < 3; i++)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(Bodies.Canonical(widgetCount: 10 + i, seed: i)));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            reported += CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes)!.Value + CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes)!.Value;
        }

        using (var truncated = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(Bodies.Canonical(4, 4)[..^2])))
        {
            Assert.Equal(HttpStatusCode.BadRequest, truncated.StatusCode);
            reported += CostHeaders.Bytes(truncated, SignCostHeaders.ParseAllocatedBytes)!.Value;
        }

        using (var empty = await client.PostAsync("/api/sign?strategy=" + strategy.ToUpperInvariant(), Bodies.Json([])))
        {
            Assert.Equal(HttpStatusCode.BadRequest, empty.StatusCode);
        }

        // Not any strategy's request: the name matches none.
        using (var unknown = await client.PostAsync("/api/sign?strategy=nope", Bodies.Json(Bodies.Canonical(1, 1))))
        {
            Assert.Equal(HttpStatusCode.BadRequest, unknown.StatusCode);
        }

        var after = await ReadAsync(client);
        var was = before.Strategies.Single(s => s.Name == strategy);
        var now = after.Strategies.Single(s => s.Name == strategy);
        Assert.Equal(5, now.Requests - was.Requests);
        Assert.Equal(2, now.Errors - was.Errors);
        Assert.Equal(reported, now.ParseAllocatedBytes + now.SignAllocatedBytes - was.ParseAllocatedBytes - was.SignAllocatedBytes);
        Assert.True(now.ParseSeconds > was.ParseSeconds);
        Assert.True(now.SignSeconds > was.SignSeconds);
        foreach (var other in after.Strategies.Where(s => s.Name != strategy))
        {
            Assert.Equal(before.Strategies.Single(s => s.Name == other.Name), other);
        }
    }

    [Fact]
    public async Task Collection_counts_and_allocations_follow_the_runtime()
    {
        using var client = factory.CreateClient();
        var before = await ReadAsync(client);

        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        var after = await ReadAsync(client);

        Assert.True(after.Gc.Collections.Gen2 > before.Gc.Collections.Gen2);
        Assert.True(after.Gc.Collections.Gen0 >= after.Gc.Collections.Gen1 && after.Gc.Collections.Gen1 >= after.Gc.Collections.Gen2);
        Assert.True(after.Gc.LastCollection.Index > before.Gc.LastCollection.Index);
        Assert.True(after.Gc.TotalAllocatedBytes > before.Gc.TotalAllocatedBytes);
        Assert.True(after.Gc.TotalPauseMilliseconds > before.Gc.TotalPauseMilliseconds);
        Assert.True(after.Gc.LastCollection.HeapSizeBytes > 0);
    }

    private static async Task<ServiceStats> ReadAsync(HttpClient client)
    {
        using var response = await client.GetAsync("/api/stats");
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return (await response.Content.ReadFromJsonAsync<ServiceStats>())!;
    }

    private static IEnumerable<string> Names(JsonElement element) =>
        element.EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal);
}
