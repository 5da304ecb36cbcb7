using System.IO.Pipelines;
using System.Net;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;
using SigningServer.Tests.Reading;

namespace SigningServer.Tests.Limits;

/// <summary>
/// A compressed body may inflate to 64 KiB, and past that to <c>Signing:MaxDecompressionRatio</c> (100 by default)
/// times what came on the wire: a decompression bomb well under the body limit is a 413 naming the ratio, not the
/// processor time of its whole inflated size.
/// </summary>
public sealed class DecompressionRatioTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [MemberData(nameof(NegotiationTests.Codings), MemberType = typeof(NegotiationTests))]
    public async Task A_body_that_inflates_over_100_times_its_wire_bytes_is_413_naming_the_ratio(string coding)
    {
        using var client = factory.CreateClient();
        // A widget and 4 MiB of spaces: an eighth of the body limit, and over 500 times its size compressed.
        var bomb = Bodies.Padded(4 * 1024 * 1024);

        foreach (var strategy in factory.StrategyNames)
        {
            using var content = NegotiationTests.Compressed(bomb, coding);
            Assert.True(content.Headers.ContentLength * 500 < bomb.Length, $"{content.Headers.ContentLength} compressed bytes");

            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, content);

            var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.RequestEntityTooLarge);
            Assert.Equal(100, problem.GetProperty("maxDecompressionRatio").GetInt32());
            Assert.Contains("100 times its size on the wire", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
            Assert.True(response.Headers.ConnectionClose, strategy);
        }

        Assert.Equal(0, factory.Pool.InUseBytes);
        Assert.Equal(0, factory.Budget.InUseBytes);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task A_body_that_inflates_to_64_KiB_or_less_signs_whatever_its_ratio()
    {
        using var client = factory.CreateClient();
        var small = Bodies.Padded(60 * 1024);
        using var content = NegotiationTests.Compressed(small, "gzip");
        Assert.True(content.Headers.ContentLength * 100 < small.Length, $"{content.Headers.ContentLength} compressed bytes");

        using var response = await client.PostAsync("/api/sign", content);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task The_bound_is_64_KiB_and_the_ratio_times_the_wire_bytes_seen_both_included()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(new byte[1000]);
        var wire = new GuardedBodyReader(pipe.Reader, ownsInner: true, long.MaxValue, admit: null, clock: null, decoding: null);
        var ratio = new DecompressionRatio(wire, 100);

        Assert.True(ratio.Allows(DecompressionRatio.Allowance));
        Assert.False(ratio.Allows(DecompressionRatio.Allowance + 1));

        var read = await wire.ReadAsync();
        Assert.True(ratio.Allows(DecompressionRatio.Allowance + 100_000));
        Assert.False(ratio.Allows(DecompressionRatio.Allowance + 100_001));
        wire.AdvanceTo(read.Buffer.End);
        Assert.True(ratio.Allows(DecompressionRatio.Allowance + 100_000));
    }

    [Fact]
    public async Task The_ratio_is_the_setting()
    {
        using var lenient = new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxDecompressionRatio"] = "1000000",
        });
        using var client = lenient.CreateClient();
        var bomb = Bodies.Padded(4 * 1024 * 1024);

        using var response = await client.PostAsync("/api/sign", NegotiationTests.Compressed(bomb, "gzip"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }
}
