using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using Signing.Http.Stats;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// SigningServer as a process on the smallest instance infra/ allows: a GC heap capped at 512 MiB
/// (<c>DOTNET_GCHeapHardLimit</c>) and default settings. It starts, logs each strategy's body limit, refuses a body
/// larger than <c>string</c> can be charged for with a 413 that says which strategies take it, keeping the connection
/// (up to a body of exactly the service's limit), and signs that same body with <c>transcode</c>.
/// </summary>
public sealed class SmallInstanceTests
{
    [Fact]
    public async Task A_512_MiB_process_starts_refuses_a_large_string_body_with_413_and_signs_it_with_transcode()
    {
        await using var server = await SigningServerProcess.StartAsync(new Dictionary<string, string>
        {
            ["DOTNET_GCHeapHardLimit"] = "0x20000000",
            ["Logging__LogLevel__Signing.Http.Memory.StrategyBodyLimits"] = "Information",
        });
        using var client = new HttpClient { BaseAddress = server.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        var limits = (await client.GetFromJsonAsync<ServiceStats>("/api/stats"))!.InFlight.MaxBodyBytes;
        Assert.Contains("largest body per strategy", server.Output, StringComparison.Ordinal);
        Assert.True(limits["string"] < limits["transcode"], $"string {limits["string"]}, transcode {limits["transcode"]}");

        // About 21.6 MB: over what string can be charged for in this budget, within transcode's limit.
        var body = Bodies.Canonical(widgetCount: 60_000, seed: 512);
        Assert.InRange(body.Length, limits["string"] + 1, limits["transcode"]);

        using (var refused = await client.PostAsync("/api/sign?strategy=string", Bodies.Json(body)))
        {
            var problem = await ProblemResponse.AssertAsync(refused, HttpStatusCode.RequestEntityTooLarge);
            Assert.Equal("string", problem.GetProperty("strategy").GetString());
            Assert.Equal(limits["string"], problem.GetProperty("maxBodyBytes").GetInt64());
            Assert.Contains("transcode", problem.GetProperty("strategiesTakingBody").EnumerateArray().Select(e => e.GetString()));

            // Within the service's limit, so Kestrel drains the rest and the connection serves the next request.
            Assert.NotEqual(true, refused.Headers.ConnectionClose);
        }

        // Exactly the service's limit, which is Kestrel's: still drained, so still no close.
        var serviceLimit = limits.Values.Max();
        using (var atLimit = await client.PostAsync("/api/sign?strategy=string", Bodies.Json(new byte[serviceLimit])))
        {
            await ProblemResponse.AssertAsync(atLimit, HttpStatusCode.RequestEntityTooLarge);
            Assert.NotEqual(true, atLimit.Headers.ConnectionClose);
        }

        using var signed = await client.PostAsync("/api/sign?strategy=transcode", Bodies.Json(body));
        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        Assert.Equal(TestKey.SignatureOf(body), (await signed.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
    }
}
