using System.Text;
using Microsoft.IO;
using Signing;
using Signing.Generation;
using Signing.Tests.Pool;

namespace Signing.Tests;

/// <summary>
/// <see cref="EnvelopeParser.Parse(RecyclableMemoryStream)"/>: a body the pool holds in one block or in many is parsed
/// from its first byte, wherever the stream stands, and reads exactly as the same bytes in one span. (The server's tests
/// run the whole hostile corpus through it; these are the cases that pin this library's own branches.)
/// </summary>
public sealed class PooledBodyParsingTests
{
    [Fact]
    public void A_null_stream_is_refused()
    {
        Assert.Throws<ArgumentNullException>(() => EnvelopeParser.Parse((RecyclableMemoryStream)null!));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_body_is_parsed_from_its_first_byte_in_one_block_or_many(bool manyBlocks)
    {
        var body = TestData.CanonicalBytes(EnvelopeGenerator.Create(20, 3, GeneratedText.Awkward));
        using var stream = (manyBlocks ? TinyBlocks.Manager : TestData.CreateStreams()).GetStream();

        // Written and not rewound, as a body drained from a request is: the parser must not start where the stream stands.
        stream.Write(body);
        Assert.Equal(!manyBlocks, stream.GetReadOnlySequence().IsSingleSegment);

        var envelope = EnvelopeParser.Parse(stream);

        Assert.Equal(body, TestData.CanonicalBytes(envelope));
    }

    [Theory]
    [InlineData("\uFEFF{\"widgets\":[]}")] // a byte order mark: the stream reader would skip it
    [InlineData("{\"widgets\":[{\"id\":\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\",\"colour\":1}]}")]
    [InlineData("{\n\"widgets\":[\n{\"id\":\"zz\"}]}")]
    [InlineData("{\"widgets\":[null]}")]
    [InlineData("null                ")]
    [InlineData("{\"widgets\":[]}      x")]
    public void A_body_in_many_blocks_fails_exactly_as_in_one_span(string json)
    {
        var body = Encoding.UTF8.GetBytes(json);
        using var stream = TinyBlocks.Manager.GetStream(body);
        Assert.False(stream.GetReadOnlySequence().IsSingleSegment);

        var inSpan = Assert.Throws<EnvelopeFormatException>(() => EnvelopeParser.Parse(body));
        var inBlocks = Assert.Throws<EnvelopeFormatException>(() => EnvelopeParser.Parse(stream));

        Assert.Equal((inSpan.Message, inSpan.Path, inSpan.Line, inSpan.Position), (inBlocks.Message, inBlocks.Path, inBlocks.Line, inBlocks.Position));
    }

    [Fact]
    public void A_byte_order_mark_before_a_body_in_many_blocks_is_reported_at_the_start()
    {
        using var stream = TinyBlocks.Manager.GetStream([0xEF, 0xBB, 0xBF, .. Encoding.UTF8.GetBytes(TestData.EnvelopeJson(TestData.WidgetJson()))]);

        var e = Assert.Throws<EnvelopeFormatException>(() => EnvelopeParser.Parse(stream));

        Assert.Null(e.Path);
        Assert.Equal(1, e.Line);
        Assert.Equal(1, e.Position);
    }
}
