using Signing.Tests.Hostile;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// The corpus cases that fit under real Kestrel's 4 KiB limit (<see cref="KestrelSigningServerFactory"/>), over
/// loopback: the same 4xx problems as in memory once Kestrel itself parses the request and owns the connection.
/// Larger bodies are the body-limit tests' concern (a client still sending a large body after an early 413 may see
/// its connection reset instead of the answer).
/// </summary>
public sealed class HostileCorpusKestrelTests(KestrelSigningServerFactory factory) : IClassFixture<KestrelSigningServerFactory>
{
    public static TheoryData<string> Cases => HostileCorpus.Names(maxLength: KestrelSigningServerFactory.Limit);

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Hostile_body_is_a_4xx_problem_on_kestrel(string name)
    {
        var hostile = HostileCorpus.Get(name);
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=streaming", Bodies.Json(hostile.Body));

        await HostileResponse.AssertClientErrorProblemAsync(response, hostile);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
