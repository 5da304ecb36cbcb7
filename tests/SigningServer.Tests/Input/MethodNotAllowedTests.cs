using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary><c>/api/sign</c> takes POST only, and <c>/api/health</c> GET and HEAD only.</summary>
public sealed class MethodNotAllowedTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Fact]
    public async Task Get_is_405_and_allows_post()
    {
        using var client = factory.CreateClient();

        using var response = await client.GetAsync("/api/sign");

        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        Assert.Contains("POST", response.Content.Headers.Allow);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("PUT")]
    [InlineData("DELETE")]
    [InlineData("PATCH")]
    public async Task Other_methods_with_a_valid_body_are_405(string method)
    {
        using var client = factory.CreateClient();
        using var request = new HttpRequestMessage(new HttpMethod(method), "/api/sign") { Content = Bodies.Json(Bodies.Canonical(1, 1)) };

        using var response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("POST")]
    [InlineData("PUT")]
    [InlineData("DELETE")]
    [InlineData("TRACE")]
    public async Task Health_answers_only_get_and_head(string method)
    {
        using var client = factory.CreateClient();

        using var refused = await client.SendAsync(new HttpRequestMessage(new HttpMethod(method), "/api/health"));
        using var head = await client.SendAsync(new HttpRequestMessage(HttpMethod.Head, "/api/health"));

        Assert.Equal(HttpStatusCode.MethodNotAllowed, refused.StatusCode);
        Assert.Equal(["GET", "HEAD"], refused.Content.Headers.Allow.Order());
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
    }
}
