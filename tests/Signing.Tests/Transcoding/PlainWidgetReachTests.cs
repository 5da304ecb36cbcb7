using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Newtonsoft.Json;
using Signing.Generation;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Which widgets take the fast path. A plain widget refused by <see cref="PlainWidget"/> still comes out right, through
/// the tokenizer, so the differential tests cannot see the fast path shrink; these count the widgets it copied
/// (<see cref="TranscodeSummary.PlainWidgets"/>) for bodies delivered in one piece, where every plain widget is whole.
/// </summary>
public sealed class PlainWidgetReachTests
{
    private static readonly string[] Members = EnvelopeJson.Members;

    public static TheoryData<string, string> PlainWidgets() => new()
    {
        { "canonical", EnvelopeJson.Widget() },
        { "upper-case guid", EnvelopeJson.Widget("id", "\"6F9619FF-8B86-D011-B42D-00CF4FC964FF\"") },
        { "space, tilde and del", EnvelopeJson.Widget("property3", "\" ~\u007f!\"") },
        { "empty string", EnvelopeJson.Widget("property9", "\"\"") },
        { "first instant", EnvelopeJson.Widget("createdUtc", "\"0001-01-01T00:00:00Z\"") },
        { "last instant", EnvelopeJson.Widget("createdUtc", "\"9999-12-31T23:59:59.9999999Z\"") },
        { "leap day", EnvelopeJson.Widget("createdUtc", "\"2024-02-29T12:00:00.5Z\"") },
        { "end of january", EnvelopeJson.Widget("createdUtc", "\"2024-01-31T00:00:00.01Z\"") },
        { "end of the year", EnvelopeJson.Widget("createdUtc", "\"2023-12-31T23:59:59Z\"") },
        { "instant with an offset", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56.7890000+02:00\"") },
        { "instant with trailing zeros", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56.7890000Z\"") },
        { "reversed", EnvelopeJson.Widget(Members.Reverse()) },
        { "rotated", EnvelopeJson.Widget(Members.Skip(5).Concat(Members.Take(5))) },
        { "whitespace around every token", Spaced(EnvelopeJson.Widget(), " \t\r\n") },
        { "whitespace, reversed", Spaced(EnvelopeJson.Widget(Members.Reverse()), "\n ") },
        { "empty string, reversed", EnvelopeJson.Widget(Members.Reverse(), m => m == "property9" ? "\"\"" : EnvelopeJson.ValidValue(m)) },
    };

    public static TheoryData<string, string> OtherWidgets() => new()
    {
        { "escaped letter", EnvelopeJson.Widget("property0", "\"\\u0041\"") },
        { "escaped quote", EnvelopeJson.Widget("property4", "\"a\\\"b\"") },
        { "non-ascii", EnvelopeJson.Widget("property8", "\"caf\u00e9\"") },
        { "escaped member name", EnvelopeJson.Widget(Members).Replace("\"property2\"", "\"propert\\u0079\\u0032\"", StringComparison.Ordinal) },
        { "escaped guid digit", EnvelopeJson.Widget("id", "\"\\u0036f9619ff-8b86-d011-b42d-00cf4fc964ff\"") },
        { "reversed, escaped", EnvelopeJson.Widget(Members.Reverse(), m => m == "property5" ? "\"\\t\"" : EnvelopeJson.ValidValue(m)) },
    };

    [Theory]
    [MemberData(nameof(PlainWidgets))]
    public void A_plain_widget_is_copied_without_the_tokenizer(string name, string widget)
    {
        var summary = Transcode(EnvelopeJson.Envelope(widget, widget, widget));

        Assert.True(summary.PlainWidgets == 3, $"{name}: {summary.PlainWidgets} of 3 widgets copied.");
    }

    [Theory]
    [MemberData(nameof(OtherWidgets))]
    public void A_widget_with_an_escape_or_a_non_ascii_character_is_left_to_the_tokenizer(string name, string widget)
    {
        var summary = Transcode(EnvelopeJson.Envelope(widget));

        Assert.True(summary.PlainWidgets == 0, $"{name}: copied.");
        Assert.Equal(1, summary.WidgetCount);
    }

    [Theory]
    [InlineData(",")]
    [InlineData(" , ")]
    [InlineData("\r\n,\r\n")]
    [InlineData("\t,")]
    public void The_widgets_after_a_copied_one_are_copied_whatever_the_whitespace_between_them(string separator)
    {
        var widget = EnvelopeJson.Widget();
        var body = "{\"widgets\":[" + string.Join(separator, Enumerable.Repeat(widget, 5)) + "]}";

        Assert.Equal(5, Transcode(body).PlainWidgets);
    }

    [Fact]
    public void After_a_widget_left_to_the_tokenizer_the_fast_path_resumes()
    {
        var plain = EnvelopeJson.Widget();
        var escaped = EnvelopeJson.Widget("property0", "\"\\u0041\"");

        var summary = Transcode(EnvelopeJson.Envelope(plain, escaped, plain, plain, escaped, escaped, plain));

        Assert.Equal(7, summary.WidgetCount);
        Assert.Equal(4, summary.PlainWidgets);
    }

    [Theory]
    [InlineData("canonical")]
    [InlineData("indented")]
    [InlineData("reversed")]
    public void Every_widget_of_a_generated_body_in_plain_text_is_copied(string layout)
    {
        var summary = Transcode(Generated(layout));

        Assert.Equal(300, summary.WidgetCount);
        Assert.Equal(300, summary.PlainWidgets);
    }

    [Theory]
    [InlineData("canonical", 4096)]
    [InlineData("indented", 4096)]
    [InlineData("reversed", 4096)]
    [InlineData("indented", 1024)]
    public async Task Delivered_in_pieces_every_widget_of_a_generated_body_in_plain_text_is_copied_whatever_its_layout(string layout, int piece)
    {
        // Widgets in canonical layout that a piece's end cuts are checked in the output with those after them; in any
        // other, joined across the cut: either way, none is left to the tokenizer.
        var body = Generated(layout);

        var output = new ArrayBufferWriter<byte>();
        var summary = await EnvelopeTranscoder.TranscodeAsync(new SteppedPipeReader(body, piece), output);

        Assert.Equal(300, summary.WidgetCount);
        Assert.Equal(300, summary.PlainWidgets);
        Assert.Null(Answer.Difference(BothPaths.ObjectPath(body), Answer.Signed(output.WrittenSpan.ToArray(), summary.WidgetCount)));
    }

    [Theory]
    [InlineData(1024)]
    [InlineData(4096)]
    [InlineData(16384)]
    public async Task Delivered_in_pieces_every_plain_widget_is_copied_even_one_that_crosses_from_one_piece_into_the_next(int piece)
    {
        // As Kestrel delivers a body: a buffer of several segments, none of them final. A widget that crosses from one
        // piece into the next is joined across the cut and copied like the others.
        var widget = EnvelopeJson.Widget();
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope([.. Enumerable.Repeat(widget, 400)]));
        var starts = Enumerable.Range(0, 400).Select(i => "{\"widgets\":[".Length + (i * (widget.Length + 1)));
        Assert.True(starts.Count(start => start / piece != (start + widget.Length - 1) / piece) >= 5, "Few widgets cross a piece's end.");

        var output = new ArrayBufferWriter<byte>();
        var summary = await EnvelopeTranscoder.TranscodeAsync(new SteppedPipeReader(body, piece), output);

        Assert.Equal(400, summary.WidgetCount);
        Assert.Equal(400, summary.PlainWidgets);
        Assert.Null(Answer.Difference(BothPaths.ObjectPath(body), Answer.Signed(output.WrittenSpan.ToArray(), summary.WidgetCount)));
    }

    [Fact]
    public async Task A_widget_longer_than_what_is_joined_across_a_cut_is_left_to_the_tokenizer_and_comes_out_right()
    {
        // 1,024 bytes are joined at most: a widget with a 2,000-character value that a piece's end cuts is tokenized.
        var widget = EnvelopeJson.Widget("property4", "\"" + new string('x', 2000) + "\"");
        var body = Encoding.UTF8.GetBytes(EnvelopeJson.Envelope([.. Enumerable.Repeat(widget, 20)]));

        var output = new ArrayBufferWriter<byte>();
        var summary = await EnvelopeTranscoder.TranscodeAsync(new SteppedPipeReader(body, 4096), output);

        Assert.Equal(20, summary.WidgetCount);
        Assert.InRange(summary.PlainWidgets, 1, 19);
        Assert.Null(Answer.Difference(BothPaths.ObjectPath(body), Answer.Signed(output.WrittenSpan.ToArray(), summary.WidgetCount)));
    }

    [Fact]
    public void Of_a_body_mixing_plain_and_awkward_text_exactly_the_widgets_whose_strings_are_plain_are_copied()
    {
        var plainText = EnvelopeGenerator.Create(300, seed: 12).Widgets;
        var awkwardText = EnvelopeGenerator.Create(300, seed: 13, GeneratedText.Awkward).Widgets;
#pragma warning disable CA5394 // Not for security: a reproducible mix.
        var random = new Random(14);
        var envelope = new WidgetEnvelope { Widgets = [.. plainText.Select((w, i) => random.Next(3) == 0 ? awkwardText[i] : w)] };
#pragma warning restore CA5394
        var body = CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(envelope, CanonicalJson.Settings));

        // Counted from the envelope, not the body: a string is written as it is when every character is printable ASCII
        // or DEL and neither a quote nor a backslash, which the canonical writer would escape.
        var plain = envelope.Widgets.Count(w => Strings(w).All(s => s.All(c => c is >= ' ' and <= '\u007f' and not '"' and not '\\')));

        var summary = Transcode(body);

        Assert.InRange(plain, 150, 250);
        Assert.Equal(plain, summary.PlainWidgets);
    }

    private static string[] Strings(Widget widget) =>
    [
        widget.Property0, widget.Property1, widget.Property2, widget.Property3, widget.Property4,
        widget.Property5, widget.Property6, widget.Property7, widget.Property8, widget.Property9,
    ];

    // Puts whitespace before and after every structural character of a widget written without any.
    private static string Spaced(string widget, string whitespace)
    {
        var spaced = new StringBuilder();
        var inString = false;
        foreach (var c in widget)
        {
            var structural = !inString && c is '{' or '}' or ':' or ',';
            spaced.Append(structural ? whitespace : string.Empty).Append(c).Append(structural ? whitespace : string.Empty);
            inString ^= c == '"';
        }

        return spaced.ToString();
    }

    private static TranscodeSummary Transcode(string body) => Transcode(Encoding.UTF8.GetBytes(body));

    // In one piece, so that no widget is split between two buffers; the bytes must be the object path's.
    private static TranscodeSummary Transcode(byte[] body)
    {
        var output = new ArrayBufferWriter<byte>();
        var summary = EnvelopeTranscoder.TranscodeAsync(PipeReader.Create(new ReadOnlySequence<byte>(body)), output).AsTask().GetAwaiter().GetResult();
        var expected = BothPaths.ObjectPath(body);
        Assert.Null(Answer.Difference(expected, Answer.Signed(output.WrittenSpan.ToArray(), summary.WidgetCount)));
        return summary;
    }

    // 300 generated widgets in plain text, in canonical layout, indented, or with their members in reverse order.
    private static byte[] Generated(string layout) => layout switch
    {
        "canonical" => Bodies.Canonical(300, seed: 11),
        "indented" => CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(300, seed: 11), Formatting.Indented, CanonicalJson.Settings)),
        _ => Bodies.Reversed(300, seed: 11),
    };
}
