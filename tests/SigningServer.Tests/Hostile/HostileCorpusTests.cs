using System.Net;
using Signing.Tests.Hostile;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// The whole generated corpus (<see cref="HostileCorpus"/>) against the in-memory host with its default body limit:
/// every body is a 4xx problem, none a 500, and afterwards the server still signs correctly with every pooled byte
/// back. One theory row per case, so a failure names it.
/// </summary>
public sealed class HostileCorpusTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    public static TheoryData<string> Cases => HostileCorpus.Names();

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Hostile_body_is_a_4xx_problem_and_the_server_recovers(string name)
    {
        var hostile = HostileCorpus.Get(name);
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(hostile.Body));

        // Every body here is under the default limit, so each is refused for what it says, not for its size.
        Assert.Equal(HttpStatusCode.BadRequest, await HostileResponse.AssertClientErrorProblemAsync(response, hostile));
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public void Corpus_is_reproducible_and_covers_every_category()
    {
        var counts = HostileCorpus.All.Values.GroupBy(c => c.Category).ToDictionary(g => g.Key, g => g.Count());

        Assert.Equal(
            ["bom", "deep-nesting", "duplicate-property", "invalid-utf8", "lone-surrogate", "long-string", "random-bytes", "random-tokens", "trailing-garbage", "wrong-type"],
            counts.Keys.Order(StringComparer.Ordinal));
        Assert.All(counts, c => Assert.True(c.Value >= 4, $"{c.Key} has only {c.Value} cases"));

        // The same seed gives the same bytes: a failing name can be rerun and means the same body.
        var random = new Random(HostileCorpus.Seed);
        var expected = new byte[random.Next(1, 3000)];
        random.NextBytes(expected);
        Assert.Equal(expected, HostileCorpus.Get("random-bytes/00").Body);
    }
}
