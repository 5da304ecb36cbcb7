using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// A plain widget that the end of a piece cuts is joined across the cut: only a widget that follows a widget, in the
/// read that first has bytes past the cut, and with the body's lines and columns carried on for whatever comes after.
/// </summary>
public sealed class CutWidgetJoinTests
{
    private static readonly string Plain = EnvelopeJson.Widget();

    // Left to the tokenizer, so that a line feed before it is counted where a piece ends rather than where widgets are copied.
    private static readonly string Escaped = EnvelopeJson.Widget("property0", "\"\\u0041\"");

    [Theory]
    [InlineData("")]
    [InlineData(" \n ")]
    public void A_member_and_its_comma_at_a_pieces_end_are_not_taken_for_the_end_of_a_widget(string space)
    {
        // The object after this comma is a syntax error (a member's name was due), though it would pass for the next
        // widget after one that ended at the cut.
        var head = "{\"widgets\":[{\"id\":" + EnvelopeJson.ValidValue("id") + space + ",";
        var body = Encoding.UTF8.GetBytes(head + space + Plain + "]}");
        var expected = BothPaths.ObjectPath(body);
        Assert.False(expected.IsSigned);

        // As a pipe delivers it: the unread end of the first segment, then the next.
        var cut = Encoding.UTF8.GetByteCount(head);
        var reader = new ScriptedPipeReader(body, [cut], [cut, body.Length]);

        Assert.Equal(expected, BothPaths.Transcoder(reader, body.Length));
    }

    [Fact]
    public void A_final_buffer_that_ends_inside_a_plain_widget_is_refused_as_the_object_path_refuses_it()
    {
        // The buffer's end marked at the start of a next, empty segment, as a pipe may mark it: the widget that the end
        // of the first segment cuts has nothing past it to be joined with.
        var text = EnvelopeJson.Envelope(Plain, Plain);
        var body = Encoding.UTF8.GetBytes(text[..(text.Length - 40)]);
        var first = new BodySegment(body, 0);
        var next = first.Append(new byte[16]);
        var expected = BothPaths.ObjectPath(body);
        Assert.False(expected.IsSigned);

        var reader = PipeReader.Create(new ReadOnlySequence<byte>(first, 0, next, 0));

        Assert.Equal(expected, BothPaths.Transcoder(reader, body.Length));
    }

    [Fact]
    public void A_widget_cut_between_two_segments_of_one_read_is_joined_in_that_read()
    {
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope(Plain, Plain, Plain, Plain));
        var third = "{\"widgets\":[".Length + (2 * (Plain.Length + 1));
        var fourth = third + Plain.Length + 1;

        // The first read: two whole widgets and half the third in one segment, the rest of the widgets in another.
        var reader = new ScriptedPipeReader(body, [third + (Plain.Length / 2), fourth + Plain.Length], [body.Length]);
        var answer = BothPaths.Transcoder(reader, body.Length);

        Assert.Null(Answer.Difference(BothPaths.ObjectPath(body), answer));
        Assert.Equal(fourth + Plain.Length, reader.ConsumedAfter[0]);
    }

    [Theory]
    [InlineData("5", false)]
    [InlineData("x", false)]
    [InlineData("{\"id\":5}", false)]
    [InlineData("x", true)]
    public void A_refusal_after_widgets_copied_and_joined_past_a_line_feed_is_placed_on_its_line_at_its_column(string refused, bool spaced)
    {
        // The only line feeds are before the envelope's first member and before each widget left to the tokenizer, so
        // a refusal's column depends on where those lines start: counted where a piece ends after a copied widget, and
        // carried into the copies and joins of the pieces after it. Every piece length cuts the widgets differently.
        // Spaced widgets are plain but not in canonical layout, so those cut are joined on the stack rather than checked
        // in the output.
        var plain = spaced ? Plain.Replace(",", ", ", StringComparison.Ordinal) : Plain;
        var widgets = Enumerable.Range(0, 12).Select(i => i % 4 == 1 ? "\n" + Escaped : plain);
        var body = Encoding.UTF8.GetBytes("{\n\"widgets\":[" + string.Join(",", widgets) + "," + refused + "]}");
        var expected = BothPaths.ObjectPath(body);
        Assert.False(expected.IsSigned);

        for (var piece = 64; piece < body.Length; piece += 5)
        {
            var difference = Answer.Difference(expected, BothPaths.Transcoder(new SteppedPipeReader(body, piece), body.Length));
            Assert.True(difference is null, $"pieces of {piece} bytes: {difference}");
        }
    }
}
