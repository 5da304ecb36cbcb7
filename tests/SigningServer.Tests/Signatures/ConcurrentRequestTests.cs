using System.Net;
using System.Net.Http.Json;
using Signing;
using Signing.Generation;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>Many requests at once, across every strategy: each gets its own correct signature.</summary>
public sealed class ConcurrentRequestTests(SigningServerFactory testServer, KestrelSigningServerFactory kestrel)
    : IClassFixture<SigningServerFactory>, IClassFixture<KestrelSigningServerFactory>
{
    private const int Requests = 64;

    [Fact]
    public async Task Sixty_four_concurrent_requests_across_strategies_all_sign_correctly()
    {
        using var client = testServer.CreateClient();
        var names = testServer.StrategyNames;

        // Up to ~100 KB per body, past the pool's first 64 KiB buffer, so buffers grow while others are rented.
        await AssertAllSignCorrectlyAsync(client, names, i => Bodies.Canonical(widgetCount: 1 + (i * 37 % 280), seed: i));

        Assert.Equal(0, testServer.Pool.InUseBytes);
    }

    [Fact]
    public async Task Sixty_four_concurrent_requests_over_kestrel_all_sign_correctly()
    {
        using var client = kestrel.CreateClient();
        var names = kestrel.StrategyNames;

        await AssertAllSignCorrectlyAsync(client, names, i => Bodies.Canonical(widgetCount: i % 8, seed: 1000 + i, GeneratedText.Awkward));

        Assert.Equal(0, kestrel.Pool.InUseBytes);
    }

    [Fact]
    public async Task Concurrent_good_and_bad_requests_do_not_disturb_each_other()
    {
        using var client = testServer.CreateClient();
        var tasks = Enumerable.Range(0, Requests).Select(async i =>
        {
            if (i % 2 == 0)
            {
                var body = Bodies.Canonical(widgetCount: 1 + i, seed: i);
                using var response = await client.PostAsync("/api/sign", Bodies.Json(body));
                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
                Assert.Equal(TestKey.SignatureOf(body), (await response.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
            }
            else
            {
                var whole = Bodies.Canonical(widgetCount: 1 + i, seed: i);
                using var response = await client.PostAsync("/api/sign", Bodies.Json(whole[..^1]));
                await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
            }
        });

        await Task.WhenAll(tasks);

        Assert.Equal(0, testServer.Pool.InUseBytes);
    }

    private static async Task AssertAllSignCorrectlyAsync(HttpClient client, IReadOnlyList<string> names, Func<int, byte[]> body)
    {
        var bodies = Enumerable.Range(0, Requests).Select(body).ToArray();
        using var start = new SemaphoreSlim(0);

        var tasks = Enumerable.Range(0, Requests).Select(async i =>
        {
            await start.WaitAsync();
            var strategy = names[i % names.Count];
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(bodies[i]));
            Assert.True(response.StatusCode == HttpStatusCode.OK, await response.Content.ReadAsStringAsync());
            var signed = (await response.Content.ReadFromJsonAsync<SignResponse>())!;
            return (i, strategy, signed);
        }).ToArray();
        start.Release(Requests);

        foreach (var (i, strategy, signed) in await Task.WhenAll(tasks))
        {
            Assert.Equal(TestKey.SignatureOf(bodies[i]), signed.Signature);
            Assert.Equal(strategy, signed.Strategy);
            Assert.Equal(bodies[i].Length, signed.BytesSigned);
        }
    }
}
