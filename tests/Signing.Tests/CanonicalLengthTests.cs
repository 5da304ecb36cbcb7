using System.Buffers;
using System.Text;
using Newtonsoft.Json;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests;

/// <summary>
/// <see cref="CanonicalLength.AtMost"/> against the document Newtonsoft writes: never below it for any body the parser
/// accepts, written any way a client might, and exactly it where the bound is tight (raw U+0085, U+2028 and U+2029,
/// instants sent as a date alone), however the body is cut into segments.
/// </summary>
public sealed class CanonicalLengthTests
{
    [Fact]
    public void The_bound_is_never_below_the_document_of_any_body_the_parser_accepts()
    {
        var accepted = 0;
        for (var seed = 0; seed < 100; seed++)
        {
            var bodies = new RandomBodies(seed);
            for (var i = 0; i < 25; i++)
            {
                var body = bodies.Next();
                WidgetEnvelope envelope;
                try
                {
                    envelope = EnvelopeParser.Parse(body);
                }
                catch (EnvelopeFormatException)
                {
                    continue;
                }

                accepted++;
                var document = Document(envelope).Length;
                var bound = CanonicalLength.AtMost(new ReadOnlySequence<byte>(body), envelope.Widgets.Count);
                Assert.True(document <= bound, $"seed {seed}, body {i}: document {document} bytes, bound {bound}.");
            }
        }

        Assert.True(accepted > 400, $"only {accepted} of the bodies parsed");
    }

    [Theory]
    [InlineData("\u0085", 4)]
    [InlineData("\u2028", 3)]
    [InlineData("\u2029", 3)]
    [InlineData("\u00a0\u00e9\u2014\u4e2d", 0)]
    public void Raw_characters_escaped_in_the_document_grow_it_by_what_the_bound_adds(string raw, int growthEach)
    {
        var value = string.Concat(Enumerable.Repeat(raw, 7));
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget("property3", $"\"{value}\""), EnvelopeJson.Widget()));
        var document = Document(EnvelopeParser.Parse(body));

        Assert.Equal(body.Length + (7 * growthEach), document.Length);
        Assert.Equal(document.Length + (2 * CanonicalLength.InstantGrowth), CanonicalLength.AtMost(new ReadOnlySequence<byte>(body), 2));
    }

    [Fact]
    public void An_instant_sent_as_a_date_alone_grows_by_the_most_an_instant_can()
    {
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget("createdUtc", "\"2024-03-10\"")));
        var document = Document(EnvelopeParser.Parse(body));

        Assert.Equal(body.Length + CanonicalLength.InstantGrowth, document.Length);
        Assert.Equal(document.Length, CanonicalLength.AtMost(new ReadOnlySequence<byte>(body), 1));
    }

    [Fact]
    public void The_shortest_widget_is_the_minimum_a_limit_allows_for_and_grows_by_the_most_an_instant_can()
    {
        // Every member in its shortest accepted spelling: the bound a body limit is worked out with is exact for it.
        var widget = EnvelopeJson.Widget(EnvelopeJson.Members, m => m switch
        {
            "id" => EnvelopeJson.ValidValue(m),
            "createdUtc" => "\"2024-03-10\"",
            _ => "\"\"",
        });
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope(widget));
        var document = Document(EnvelopeParser.Parse(body));

        Assert.Equal(CanonicalLength.MinWidgetBytes, Encoding.UTF8.GetByteCount(widget));
        Assert.Equal(document.Length, CanonicalLength.AtMostWithoutRawEscapes(body.Length));
        Assert.Equal(document.Length, CanonicalLength.AtMost(new ReadOnlySequence<byte>(body), 1));
    }

    [Fact]
    public void A_character_cut_between_segments_is_counted_as_in_one()
    {
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget("property0", "\"\u0085\u2028\u2029\u0085\"")));
        var whole = CanonicalLength.AtMost(new ReadOnlySequence<byte>(body), 1);

        for (var cut = 1; cut < body.Length; cut++)
        {
            Assert.Equal(whole, CanonicalLength.AtMost(Split(body, cut), 1));
        }

        Assert.Equal(body.Length + 4 + 3 + 3 + 4 + CanonicalLength.InstantGrowth, whole);
    }

    private static byte[] Document(WidgetEnvelope envelope) =>
        CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(envelope, CanonicalJson.Settings));

    private static ReadOnlySequence<byte> Split(byte[] body, int cut)
    {
        var first = new BodySegment(body.AsMemory(0, cut), 0);
        var last = first.Append(body.AsMemory(cut));
        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }
}
