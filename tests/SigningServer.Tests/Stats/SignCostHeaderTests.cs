using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Stats;

/// <summary>Every sign response says what it cost the server: Server-Timing and the bytes allocated per phase.</summary>
public sealed class SignCostHeaderTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Fact]
    public async Task Every_envelope_strategy_reports_read_parse_and_sign_timings_and_allocations()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 20, seed: 8);

        foreach (var name in factory.Strategies.Names)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + name, Bodies.Json(body));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(["read", "parse", "sign"], CostHeaders.Timings(response).Select(t => t.Name));
            // Parsing twenty widgets makes twenty objects and their strings, so it cannot allocate nothing.
            Assert.True(CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes) > 0);
            Assert.NotNull(CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes));
        }
    }

    [Fact]
    public async Task Transcode_reports_one_read_phase_and_no_allocation_it_could_not_measure()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=transcode", Bodies.Json(Bodies.Canonical(widgetCount: 20, seed: 8)));

        // Reading and signing are one awaited phase, and a thread's allocation count means nothing across awaits.
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(["read"], CostHeaders.Timings(response).Select(t => t.Name));
        Assert.Null(CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes));
        Assert.Null(CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes));
    }

    [Fact]
    public async Task Allocations_tell_the_copying_strategies_from_the_recyclable_one()
    {
        using var client = factory.CreateClient();
        // 300 widgets: about 108 KB of canonical JSON, past the 85,000-byte large-object threshold.
        var body = Bodies.Canonical(widgetCount: 300, seed: 12);

        var stringBytes = await SignAllocationAsync(client, body, "string");
        var memoryStreamBytes = await SignAllocationAsync(client, body, "memorystream");
        var recyclableBytes = await SignAllocationAsync(client, body, "recyclable");

        // The string strategy holds the document as UTF-16 (two bytes a char) and then as a byte array: three copies.
        Assert.True(stringBytes >= 3L * body.Length, $"string allocated {stringBytes} bytes signing {body.Length}");
        // A MemoryStream's final buffer alone is at least the document.
        Assert.True(memoryStreamBytes >= body.Length, $"memorystream allocated {memoryStreamBytes} bytes signing {body.Length}");
        // The recyclable strategy's blocks come back to the pool, so what it allocates is less than one copy.
        Assert.True(recyclableBytes < body.Length, $"recyclable allocated {recyclableBytes} bytes signing {body.Length}");
    }

    [Fact]
    public async Task Malformed_envelope_reports_the_parse_it_tried_and_no_sign()
    {
        using var client = factory.CreateClient();
        var whole = Bodies.Canonical(widgetCount: 3, seed: 2);

        using var response = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(whole[..^1]));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(["read", "parse"], CostHeaders.Timings(response).Select(t => t.Name));
        Assert.NotNull(CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes));
        Assert.Null(CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes));
    }

    [Fact]
    public async Task A_request_refused_before_reading_reports_no_cost()
    {
        using var client = factory.CreateClient();
        using var content = new ByteArrayContent(Bodies.Canonical(1, 1));
        content.Headers.ContentType = new("text/plain");

        using var response = await client.PostAsync("/api/sign", content);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
        Assert.Empty(CostHeaders.Timings(response));
        Assert.Null(CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes));
    }

    [Fact]
    public async Task Timings_are_the_phases_durations_within_the_request()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 300, seed: 13);

        var watch = System.Diagnostics.Stopwatch.StartNew();
        using var response = await client.PostAsync("/api/sign?strategy=string", Bodies.Json(body));
        var elapsed = watch.Elapsed.TotalMilliseconds;

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var timings = CostHeaders.Timings(response);
        Assert.All(timings, t => Assert.True(t.Milliseconds >= 0));
        // Signing 108 KB takes measurable time, and no phase can outlast the request the client timed.
        Assert.True(timings.Single(t => t.Name == "sign").Milliseconds > 0);
        Assert.True(timings.Sum(t => t.Milliseconds) <= elapsed, $"{string.Join(", ", timings)} within {elapsed} ms");
    }

    // Signs twice and reports the second: the first request of a strategy also fills its pool and compiles its code.
    private static async Task<long> SignAllocationAsync(HttpClient client, byte[] body, string strategy)
    {
        long? allocated = null;
        for (var i = 0; i < 2; i++)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(body));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(body.Length, (await response.Content.ReadFromJsonAsync<SignResponse>())!.BytesSigned);
            allocated = CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes);
        }

        return allocated!.Value;
    }
}
