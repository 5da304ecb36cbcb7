using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>A member the envelope does not have would not be signed, so it is refused rather than dropped.</summary>
public sealed class UnknownPropertyTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData("{\"widgets\":[],\"extra\":1}", "extra")]
    [InlineData("{\"extra\":{\"a\":[1,2]},\"widgets\":[]}", "extra")]
    [InlineData("{\"widgets\":[],\"signature\":\"00\"}", "signature")]
    public async Task Unknown_envelope_member_is_400_naming_it(string json, string path)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(path, problem.GetProperty("path").GetString());
        Assert.Contains(path, ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Unknown_widget_member_is_400_naming_its_path()
    {
        using var client = factory.CreateClient();
        var valid = System.Text.Encoding.UTF8.GetString(Bodies.Canonical(widgetCount: 2, seed: 12));
        var json = valid.Replace("\"createdUtc\"", "\"colour\":\"red\",\"createdUtc\"", StringComparison.Ordinal);

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal("widgets[0].colour", problem.GetProperty("path").GetString());
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
