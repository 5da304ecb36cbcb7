using System.Net;
using System.Net.Http.Json;
using Signing;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// The endpoint's own limit (<c>Signing:MaxRequestBodyBytes</c>), on TestServer, which enforces no Kestrel limit of
/// its own: 413 whether the size is announced by Content-Length or only found while reading.
/// </summary>
public sealed class BodyLimitTests(SmallBodyLimitFactory factory) : IClassFixture<SmallBodyLimitFactory>
{
    private const int Limit = SmallBodyLimitFactory.Limit;

    [Fact]
    public async Task Body_with_content_length_over_the_limit_is_413()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(Bodies.Padded(Limit + 1)));

        await AssertTooLargeAsync(response);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Body_without_content_length_over_the_limit_is_413()
    {
        using var client = factory.CreateStreamingClient();
        using var request = UnknownLengthContent.ChunkedPost("/api/sign", Bodies.Padded(Limit + 1));

        using var response = await client.SendAsync(request);

        Assert.Null(request.Content!.Headers.ContentLength);
        await AssertTooLargeAsync(response);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Much_larger_body_without_content_length_is_413()
    {
        using var client = factory.CreateStreamingClient();
        using var request = UnknownLengthContent.ChunkedPost("/api/sign", Bodies.Padded(1024 * 1024));

        using var response = await client.SendAsync(request);

        Assert.Null(request.Content!.Headers.ContentLength);
        await AssertTooLargeAsync(response);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Body_of_exactly_the_limit_is_signed(bool withContentLength)
    {
        using var client = factory.CreateStreamingClient();
        var body = Bodies.Padded(Limit);
        using var request = withContentLength
            ? new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Bodies.Json(body) }
            : UnknownLengthContent.ChunkedPost("/api/sign", body);

        using var response = await client.SendAsync(request);

        Assert.Equal(withContentLength ? Limit : null, request.Content!.Headers.ContentLength);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
        Assert.Equal(TestKey.SignatureOf(Bodies.Canonical(widgetCount: 1, seed: Bodies.PaddedSeed)), signed!.Signature);
    }

    private static Task AssertTooLargeAsync(HttpResponseMessage response) =>
        ProblemResponse.AssertPastServiceLimitAsync(response, SigningStrategies.DefaultName, Limit);
}
