using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>A JSON request with nothing (or nothing but whitespace) in it: 400, not a null envelope signed.</summary>
public sealed class EmptyBodyTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Fact]
    public async Task Empty_body_is_400()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json([]));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("widgets", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Empty_body_is_400_with_transcode_too()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=transcode", Bodies.Json([]));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal("Empty body", problem.GetProperty("title").GetString());
    }

    [Fact]
    public async Task Empty_body_without_content_length_is_400()
    {
        using var client = factory.CreateStreamingClient();

        using var request = UnknownLengthContent.ChunkedPost("/api/sign", []);

        using var response = await client.SendAsync(request);

        Assert.Null(request.Content!.Headers.ContentLength);
        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("widgets", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData(" ")]
    [InlineData("\r\n\t ")]
    [InlineData("null")]
    public async Task Whitespace_or_null_body_is_400(string json)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.Detail(problem);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
