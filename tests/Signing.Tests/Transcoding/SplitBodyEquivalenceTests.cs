using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Bodies held in two segments, split at every byte: a token, a line feed or a property name that crosses from one
/// segment into the next is read from a sequence rather than a span, and must give the same answer.
/// </summary>
public sealed class SplitBodyEquivalenceTests
{
    public static TheoryData<string, string> Bodies() => new()
    {
        // A refusal reported after a line feed that the crossing read counts in its second segment.
        { "value of the wrong type on a new line", "{\"widgets\":[{\"id\": \n 5 }]}" },
        { "unknown member on a new line", "{\"widgets\":[{\r\n \"nope\" \n : \"x\"}]}" },
        { "indented widget with a wrong value", EnvelopeJson.Envelope(EnvelopeJson.Widget("property4", "\n  true")).Replace(",", ",\n  ", StringComparison.Ordinal) },

        // An empty name, which arrives as an empty sequence when split between its quotes.
        { "empty member name", "{\"widgets\":[{\"\":\"x\"}]}" },
        { "empty envelope member name", "{\"\":[]}" },

        // Escaped names and text split anywhere.
        { "escaped member name", EnvelopeJson.Envelope(EnvelopeJson.Widget(EnvelopeJson.Members).Replace("\"property2\"", "\"propert\\u0079\\u0032\"", StringComparison.Ordinal)) },
        { "escaped text", EnvelopeJson.Envelope(EnvelopeJson.Widget("property7", "\"a\\n\\u00e9\\uD83D\\uDE00b\"")) },
    };

    [Theory]
    [MemberData(nameof(Bodies))]
    public void A_body_split_in_two_anywhere_is_answered_as_the_object_path_answers_it(string name, string text)
    {
        var body = Encoding.UTF8.GetBytes(text);
        var expected = BothPaths.ObjectPath(body);
        for (var at = 1; at < body.Length; at++)
        {
            var first = new BodySegment(body.AsMemory(0, at), 0);
            var last = first.Append(body.AsMemory(at));
            var reader = PipeReader.Create(new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length));
            var difference = Answer.Difference(expected, BothPaths.Transcoder(reader, body.Length));
            Assert.True(difference is null, $"{name}, split at {at}: {difference}");
        }
    }

    [Theory]
    [InlineData("5", 0)]
    [InlineData("x", 0)]
    [InlineData("5", 5000)]
    [InlineData("x", 5000)]
    public void A_refusal_after_widgets_copied_on_lines_of_their_own_is_placed_on_its_line(string refused, int spaces)
    {
        // The widgets are copied without the tokenizer, which then goes on from the last one's line; the refusal (a
        // number for a widget, or a syntax error) must be placed on that line, in whichever read it comes: spaces put it
        // in a later read than the last widget copied.
        // Every seventh widget has an escape, so the tokenizer reads it between two runs of copied widgets.
        var escaped = EnvelopeJson.Widget("property0", "\"\\u0041\"");
        var widgets = string.Join(",\n", Enumerable.Range(0, 40).Select(i => i % 7 == 3 ? escaped : EnvelopeJson.Widget()));
        var body = Encoding.UTF8.GetBytes("{\n\"widgets\":[" + widgets + "," + new string(' ', spaces) + refused + "]}");
        var expected = BothPaths.ObjectPath(body);
        Assert.False(expected.IsSigned);

        foreach (var segment in new[] { 4096, 1000, 333 })
        {
            Assert.Equal(expected, BothPaths.Transcoder(new SteppedPipeReader(body, segment), body.Length));
        }
    }
}
