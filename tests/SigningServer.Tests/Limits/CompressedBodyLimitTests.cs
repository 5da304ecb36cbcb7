using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;
using SigningServer.Tests.Reading;

namespace SigningServer.Tests.Limits;

/// <summary>The body limit counts the decompressed bytes: a small compressed body that inflates past it is a 413, not an allocation.</summary>
public sealed class CompressedBodyLimitTests(SmallBodyLimitFactory factory) : IClassFixture<SmallBodyLimitFactory>
{
    [Theory]
    [InlineData("gzip")]
    [InlineData("br")]
    [InlineData("deflate")]
    public async Task A_compressed_body_that_inflates_past_the_limit_is_413(string coding)
    {
        using var client = factory.CreateClient();
        // 1 MiB of spaces (valid JSON whitespace) compresses to a few KB or less, far under the 4 KiB limit.
        var body = Bodies.Utf8("{\"widgets\":[" + new string(' ', 1024 * 1024) + "]}");
        var content = NegotiationTests.Compressed(body, coding);
        Assert.True(content.Headers.ContentLength < SmallBodyLimitFactory.Limit, $"{content.Headers.ContentLength} compressed bytes");

        using var response = await client.PostAsync("/api/sign", content);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal(0, factory.Pool.InUseBytes);
    }

    [Fact]
    public async Task A_compressed_body_that_stays_under_the_limit_signs()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 5, seed: 8);
        Assert.True(body.Length < SmallBodyLimitFactory.Limit);

        using var response = await client.PostAsync("/api/sign", NegotiationTests.Compressed(body, "gzip"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }
}
