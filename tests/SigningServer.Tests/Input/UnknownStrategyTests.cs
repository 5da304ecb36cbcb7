using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>A strategy name the server does not have: 400 listing the names it does.</summary>
public sealed class UnknownStrategyTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData("nope")]
    [InlineData("")]
    [InlineData("recyclable%20")]
    [InlineData("pooled")]
    [InlineData("pooledhash")]
    [InlineData("%E2%9C%93")]
    public async Task Unknown_strategy_is_400_listing_the_valid_names(string strategy)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(Bodies.Canonical(1, 1)));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        var valid = problem.GetProperty("validStrategies").EnumerateArray().Select(e => e.GetString()!).ToArray();
        Assert.Equal(factory.StrategyNames, valid);
        foreach (var name in factory.StrategyNames)
        {
            Assert.Contains(name, ProblemResponse.Detail(problem), StringComparison.Ordinal);
        }

        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Very_long_strategy_name_is_not_echoed_in_full()
    {
        using var client = factory.CreateClient();
        var name = new string('x', 10_000);

        using var response = await client.PostAsync("/api/sign?strategy=" + name, Bodies.Json(Bodies.Canonical(1, 1)));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.DoesNotContain(name, ProblemResponse.Detail(problem), StringComparison.Ordinal);
        Assert.True(ProblemResponse.Detail(problem).Length < 500);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData(63)]
    [InlineData(64)]
    public async Task Strategy_name_of_up_to_64_characters_is_echoed_in_full(int length)
    {
        using var client = factory.CreateClient();
        var name = new string('x', length);

        using var response = await client.PostAsync("/api/sign?strategy=" + name, Bodies.Json(Bodies.Canonical(1, 1)));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal($"There is no strategy named '{name}'. Valid names: {string.Join(", ", factory.StrategyNames)}.", ProblemResponse.Detail(problem));
    }

    [Fact]
    public async Task Strategy_name_of_65_characters_is_cut_to_64_and_an_ellipsis()
    {
        using var client = factory.CreateClient();
        var name = new string('x', 64) + "y";

        using var response = await client.PostAsync("/api/sign?strategy=" + name, Bodies.Json(Bodies.Canonical(1, 1)));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.StartsWith($"There is no strategy named '{new string('x', 64)}\u2026'. ", ProblemResponse.Detail(problem), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Strategy_given_twice_is_400()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=string&strategy=pooled", Bodies.Json(Bodies.Canonical(1, 1)));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("strategy", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
