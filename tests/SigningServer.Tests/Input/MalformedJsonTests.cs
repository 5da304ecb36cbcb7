using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>Bodies that are not JSON, or stop before the JSON does: 400 saying where.</summary>
public sealed class MalformedJsonTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData("{\"widgets\":[", 1)]
    [InlineData("{\"widgets\":[{\"id\":", 1)]
    [InlineData("{\n  \"widgets\": [\n    {,\n  ]\n}", 3)]
    [InlineData("{\"widgets\":[]} trailing", 1)]
    [InlineData("{\"widgets\":[tru]}", 1)]
    [InlineData("{\"widgets\":[]}}", 1)]
    public async Task Malformed_json_is_400_with_line_and_position(string json, int line)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.Detail(problem);
        Assert.Equal(line, problem.GetProperty("line").GetInt32());
        Assert.True(problem.GetProperty("position").GetInt32() > 0);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("hello")]
    [InlineData("<widgets/>")]
    [InlineData("]")]
    public async Task Body_that_is_not_json_is_400_pointing_at_its_first_character(string text)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(text));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.Detail(problem);
        Assert.Equal(1, problem.GetProperty("line").GetInt32());
        Assert.Equal(1, problem.GetProperty("position").GetInt32());
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Malformed_value_inside_a_widget_names_its_path()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json("{\"widgets\":[{\"id\":}]}"));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal("widgets[0].id", problem.GetProperty("path").GetString());
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Canonical_body_cut_short_is_400()
    {
        using var client = factory.CreateClient();
        var whole = Bodies.Canonical(widgetCount: 3, seed: 8);

        using var response = await client.PostAsync("/api/sign", Bodies.Json(whole[..(whole.Length / 2)]));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.StartsWith("widgets[", problem.GetProperty("path").GetString(), StringComparison.Ordinal);
        Assert.Equal(1, problem.GetProperty("line").GetInt32());
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
