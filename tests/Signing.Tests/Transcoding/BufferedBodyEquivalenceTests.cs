using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Newtonsoft.Json;
using Signing.Generation;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Bodies handed over whole in one read of many small segments, as Kestrel hands over a body that arrived while its
/// request waited (a loaded server's reads held about 128 blocks of 4 KiB; both hosts now receive into 16 KiB ones):
/// every segment's end falls somewhere in a token, a widget or a long value, and the answer must be the object path's.
/// </summary>
public sealed class BufferedBodyEquivalenceTests
{
    // Long enough that a body spans many segments of every size below, and a long value several of them.
    private const int Span = 64 * 1024;

    public static TheoryData<string> Shapes() =>
        ["canonical", "reversed", "awkward text", "mixed", "upper-case ids", "long value", "syntax error", "refused byte", "cut short", "lines between, broken", "indented, broken", "mixed layouts, broken"];

    [Theory]
    [MemberData(nameof(Shapes))]
    public void A_body_read_at_once_in_small_segments_is_answered_as_the_object_path_answers_it(string shape)
    {
        // Leading spaces move every segment's end through a widget, 37 bytes at a time.
        for (var shift = 0; shift < 400; shift += 37)
        {
            var body = Body(shape, shift);
            Assert.True(body.Length > 2 * Span, $"{shape}: {body.Length} bytes, shorter than the segments need");
            var expected = BothPaths.ObjectPath(body);
            foreach (var segment in new[] { 16384, 4096, 1000, 333, Span + 1 })
            {
                var difference = Answer.Difference(expected, BothPaths.Transcoder(AtOnce(body, segment), body.Length));
                Assert.True(difference is null, $"{shape}, shifted by {shift}, in segments of {segment}: {difference}");
            }
        }
    }

    private static byte[] Body(string shape, int shift)
    {
        var body = shape switch
        {
            "canonical" => Bodies.Canonical(500, seed: 1),
            "reversed" => Bodies.Reversed(500, seed: 2),
            "awkward text" => Bodies.Canonical(400, seed: 3, GeneratedText.Awkward),
            "mixed" => Mixed(),
            "upper-case ids" => UpperCaseIds(),
            "long value" => Encoding.UTF8.GetBytes(EnvelopeJson.Envelope(
                EnvelopeJson.Widget(), EnvelopeJson.Widget("property3", "\"" + new string('v', 3 * Span) + "\""), EnvelopeJson.Widget())),
            "syntax error" => WithAt(Bodies.Canonical(500, seed: 4), Span + 5, "nul"u8),
            "refused byte" => WithAt(Bodies.Canonical(500, seed: 5), (2 * Span) - 3, "\u0001"u8),
            "cut short" => Bodies.Canonical(500, seed: 7)[..^2],

            // Line feeds before and inside copied widgets, then a syntax error: its line and column count them.
            "lines between, broken" => Broken(Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(Bodies.Canonical(500, seed: 8)).Replace("},{", "},\n{", StringComparison.Ordinal))),
            "mixed layouts, broken" => Broken(MixedLayouts()),
            "indented, broken" => Broken(CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(300, 9), Formatting.Indented, CanonicalJson.Settings))),
            _ => throw new ArgumentOutOfRangeException(nameof(shape)),
        };
        return [(byte)'{', .. Enumerable.Repeat((byte)' ', shift), .. body.AsSpan(1)];
    }

    // Every fifth widget with its members reversed, so that runs of copied widgets and tokenized ones alternate.
    private static byte[] Mixed()
    {
        var canonical = Encoding.UTF8.GetString(Bodies.Canonical(500, seed: 6));
        var reversed = Encoding.UTF8.GetString(Bodies.Reversed(500, seed: 6));
        var widgets = Widgets(canonical).Zip(Widgets(reversed), (c, r) => (c, r)).Select((pair, i) => i % 5 == 2 ? pair.r : pair.c);
        return Envelope(widgets);
    }

    // Every ninth widget's Guid in upper case, which ends a run of copied widgets and is written lowered.
    private static byte[] UpperCaseIds()
    {
        var canonical = Encoding.UTF8.GetString(Bodies.Canonical(500, seed: 11));
        var id = "{\"id\":\"".Length;
        return Envelope(Widgets(canonical).Select((w, i) => i % 9 == 4 ? w[..id] + w.Substring(id, 36).ToUpperInvariant() + w[(id + 36)..] : w));
    }

    // Every other widget with a line feed before each member, so that widgets copied as they are and widgets copied
    // member by member alternate in one piece, with line feeds in the second kind only; and every seventh with an
    // escape, which the tokenizer reads before it hands the next widget back to be copied.
    private static byte[] MixedLayouts()
    {
        var canonical = Encoding.UTF8.GetString(Bodies.Canonical(500, seed: 10));
        return Envelope(Widgets(canonical).Select((w, i) => (i % 7, i % 2) switch
        {
            (3, _) => w.Replace("\"property0\":\"", "\"property0\":\"\\u0041", StringComparison.Ordinal),
            (_, 1) => w.Replace(",\"", ",\n\"", StringComparison.Ordinal),
            _ => w,
        }));
    }

    // A generated envelope's widgets, each whole with its braces, and an envelope of widgets so written.
    private static IEnumerable<string> Widgets(string envelope) =>
        envelope["{\"widgets\":[".Length..^2].Split("},{").Select(w => (w.StartsWith('{') ? "" : "{") + w + (w.EndsWith('}') ? "" : "}"));

    private static byte[] Envelope(IEnumerable<string> widgets) => Encoding.UTF8.GetBytes("{\"widgets\":[" + string.Join(",", widgets) + "]}");

    // The body with a stray byte after the first widget to end past one and a half spans: a syntax error that the
    // tokenizer meets where the widgets copied before it stop.
    private static byte[] Broken(byte[] body)
    {
        var end = body.AsSpan(Span + (Span / 2)).IndexOf("},"u8) + Span + (Span / 2) + 1;
        return [.. body.AsSpan(0, end), (byte)'x', .. body.AsSpan(end)];
    }

    // The body with bytes written over it at at (a value's bytes, for the tests' shifts), which a value cannot hold.
    private static byte[] WithAt(byte[] body, int at, ReadOnlySpan<byte> bytes)
    {
        var changed = body.ToArray();
        bytes.CopyTo(changed.AsSpan(at));
        return changed;
    }

    private static PipeReader AtOnce(byte[] body, int segmentBytes)
    {
        var first = new BodySegment(body.AsMemory(0, Math.Min(segmentBytes, body.Length)), 0);
        var last = first;
        for (var at = segmentBytes; at < body.Length; at += segmentBytes)
        {
            last = last.Append(body.AsMemory(at, Math.Min(segmentBytes, body.Length - at)));
        }

        return PipeReader.Create(new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length));
    }
}
