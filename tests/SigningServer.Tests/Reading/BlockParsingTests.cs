using System.Text;
using Microsoft.IO;
using Signing;
using Signing.Tests.Hostile;
using Signing.Tests.Pool;
using SigningServer.Tests.Clients;

namespace SigningServer.Tests.Reading;

/// <summary>
/// A body in the pool's blocks is parsed exactly as the same bytes in one span: the same envelope, or the same
/// problem (message, path, line and position). Blocks of 16 bytes put a block boundary inside nearly every token, so
/// that every body here takes the multi-block path.
/// </summary>
public sealed class BlockParsingTests
{
    private const string TooDeep = "The maximum configured depth of 64 has been exceeded";

    public static TheoryData<string> HostileNames() => HostileCorpus.Names();

    [Theory]
    [MemberData(nameof(HostileNames))]
    public void Every_hostile_body_fails_the_same_way_in_blocks_as_in_one_span(string name) =>
        AssertSameOutcome(HostileCorpus.Get(name).Body);

    [Theory]
    [InlineData(1, 1)]
    [InlineData(30, 2)]
    [InlineData(300, 3)]
    public void Valid_bodies_parse_to_the_same_envelope(int widgetCount, int seed) =>
        AssertSameOutcome(Bodies.Canonical(widgetCount, seed));

    [Theory]
    [InlineData("{\"widgets\":[]}  \n ")]
    [InlineData("\n\n  {\"widgets\":[{\"id\":1}]}")]
    [InlineData("{\"widgets\":[]} {}")]
    [InlineData("{\"widgets\":[]}x")]
    [InlineData("{\"widgets\":[],\"widgets\":[]}")]
    [InlineData("{\"widgets\":[null]}")]
    [InlineData("null")]
    [InlineData("   ")]
    [InlineData("{\"widgets\":[")]
    [InlineData("\uFEFF{\"widgets\":[]}")]
    public void Edge_bodies_fail_or_pass_the_same_way(string json) => AssertSameOutcome(Encoding.UTF8.GetBytes(json));

    private static void AssertSameOutcome(byte[] body)
    {
        using var blocks = TinyBlocks.Manager.GetStream(body);
        Assert.True(body.Length <= 16 || !blocks.GetReadOnlySequence().IsSingleSegment);

        var (spanEnvelope, spanError) = Outcome(() => EnvelopeParser.Parse(body));
        var (blockEnvelope, blockError) = Outcome(() => EnvelopeParser.Parse(blocks));

        if (spanError is not null && blockError is not null && blockError.Message.StartsWith(TooDeep, StringComparison.Ordinal))
        {
            // The one difference, System.Text.Json's own: its stream reader reads a value ahead whole before
            // converting it, so a value nested past the depth limit where a string belongs is reported as too deep
            // rather than of the wrong type. Same path, refused either way.
            Assert.StartsWith("The JSON value could not be converted", spanError.Message, StringComparison.Ordinal);
            Assert.Equal(spanError.Path, blockError.Path);
            return;
        }

        Assert.Equal(
            (spanError?.Message, spanError?.Path, spanError?.Line, spanError?.Position),
            (blockError?.Message, blockError?.Path, blockError?.Line, blockError?.Position));
        Assert.Equal(spanEnvelope is null, blockEnvelope is null);
        if (spanEnvelope is not null)
        {
            Assert.Equal(Canonical(spanEnvelope), Canonical(blockEnvelope!));
        }
    }

    private static (WidgetEnvelope? Envelope, EnvelopeFormatException? Error) Outcome(Func<WidgetEnvelope> parse)
    {
        try
        {
            return (parse(), null);
        }
        catch (EnvelopeFormatException e)
        {
            return (null, e);
        }
    }

    private static byte[] Canonical(WidgetEnvelope envelope)
    {
        using var stream = new MemoryStream();
        CanonicalJson.Write(envelope, stream);
        return stream.ToArray();
    }
}
