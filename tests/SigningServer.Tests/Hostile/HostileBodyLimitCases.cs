using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using Signing.Tests.Hostile;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// Bodies just over a host's 4 KiB limit (a valid envelope padded with spaces, so size is the only fault), sent with
/// a Content-Length and chunked without one: each is a 413 problem, and exactly the limit still signs (except chunked
/// on Kestrel, which counts the chunk framing against its own limit, set to the same number). The derived
/// classes run these on the in-memory host and on real Kestrel.
/// </summary>
public abstract class HostileBodyLimitCases
{
    private readonly SigningServerFactory _factory;
    private readonly int _limit;
    private readonly bool _chunkFramingCounts;
    private readonly bool _closesPastLimit;

    /// <summary>
    /// Runs the cases against <paramref name="factory"/>, whose body limit is <paramref name="limit"/>. With
    /// <paramref name="chunkFramingCounts"/>, the server counts chunked framing against the limit as well as the body
    /// (Kestrel's <c>MaxRequestBodySize</c> does), so a chunked body of exactly the limit is refused there. With
    /// <paramref name="closesPastLimit"/>, the server will not drain a body past the limit after answering, so every
    /// 413 must say <c>Connection: close</c>: a client that took it for keep-alive would send its next request on a
    /// connection that is closing, and lose it. A chunked body's 413 says so on every host: it is refused part-way, with
    /// no length to tell how much more is coming (<see cref="Limits.ChunkedBodyLimitTests"/>).
    /// </summary>
    protected HostileBodyLimitCases(SigningServerFactory factory, int limit, bool chunkFramingCounts, bool closesPastLimit)
    {
        _factory = factory;
        _limit = limit;
        _chunkFramingCounts = chunkFramingCounts;
        _closesPastLimit = closesPastLimit;
    }

    public static TheoryData<int, bool> Overs => new()
    {
        { 1, false }, { 1, true }, { 2, false }, { 2, true }, { 7, false }, { 7, true }, { 1000, false }, { 1000, true },
        { 4096, false }, { 4096, true }, { (16 * 1024) + 1, false }, { (16 * 1024) + 1, true },
    };

    [Theory]
    [MemberData(nameof(Overs))]
    public async Task Body_just_over_the_limit_is_a_413_problem(int over, bool chunked)
    {
        var hostile = new HostileCase($"over-limit/{over}-{(chunked ? "chunked" : "content-length")}", "over-limit", Bodies.Padded(_limit + over));
        using var client = _factory.CreateStreamingClient();

        using var request = chunked
            ? UnknownLengthContent.ChunkedPost("/api/sign?strategy=utf8", hostile.Body)
            : new HttpRequestMessage(HttpMethod.Post, "/api/sign?strategy=utf8") { Content = Bodies.Json(hostile.Body) };
        using var response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, await HostileResponse.AssertClientErrorProblemAsync(response, hostile));
        Assert.Equal(_closesPastLimit || chunked, response.Headers.ConnectionClose == true);
        await ServerHealth.AssertStillSigningAsync(client, _factory);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Body_of_exactly_the_limit_signs(bool chunked)
    {
        var body = Bodies.Padded(_limit);
        using var client = _factory.CreateStreamingClient();

        using var request = chunked
            ? UnknownLengthContent.ChunkedPost("/api/sign?strategy=utf8", body)
            : new HttpRequestMessage(HttpMethod.Post, "/api/sign?strategy=utf8") { Content = Bodies.Json(body) };
        using var response = await client.SendAsync(request);

        if (chunked && _chunkFramingCounts)
        {
            // Pinned so that it is seen: the limit a chunked client meets on Kestrel is the limit less its framing.
            await ProblemResponse.AssertPastServiceLimitAsync(response, "utf8", _limit);
            Assert.Equal(0, _factory.Pool.InUseBytes);
            return;
        }

        Assert.True(response.StatusCode == HttpStatusCode.OK, $"{(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}");
        var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
        Assert.Equal(TestKey.SignatureOf(Bodies.Canonical(widgetCount: 1, seed: Bodies.PaddedSeed)), signed!.Signature);
        Assert.Equal(0, _factory.Pool.InUseBytes);
    }
}
