using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>Hostile nesting is a 400, never a stack overflow or a 500.</summary>
public sealed class NestingDepthTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData("{\"widgets\":", 65, "widgets[0]")]
    [InlineData("{\"widgets\":", 100_000, "widgets[0]")]
    [InlineData("{\"widgets\":[", 100_000, "widgets[0]")]
    [InlineData("{\"widgets\":[],\"x\":", 100_000, "x")]
    [InlineData("", 100_000, null)]
    public async Task Deeply_nested_body_is_400(string prefix, int depth, string? path)
    {
        using var client = factory.CreateClient();
        var json = prefix + new string('[', depth) + new string(']', depth) + (prefix.Length > 0 ? "}" : "");

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(path, problem.TryGetProperty("path", out var at) ? at.GetString() : null);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Deeply_nested_objects_are_400()
    {
        using var client = factory.CreateClient();
        const int Depth = 100_000;
        var json = string.Concat(Enumerable.Repeat("{\"a\":", Depth)) + "1" + new string('}', Depth);

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
