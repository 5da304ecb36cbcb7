using System.Globalization;
using System.Text;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Strings as they may arrive on the wire (raw UTF-8, every escape form, surrogate pairs, lone surrogates, invalid
/// UTF-8) give the same canonical bytes, or the same refusal, on the transcoder as on the object path.
/// </summary>
public sealed class TextEquivalenceTests
{
    [Fact]
    public void Every_utf16_code_unit_raw_and_escaped_in_either_case_is_answered_alike()
    {
        // Raw, each unit is its UTF-8 (a surrogate alone has none and is skipped; a raw control character is refused).
        var bodies = new List<byte[]>();
        for (var unit = 0; unit <= char.MaxValue; unit++)
        {
            var c = (char)unit;
            if (!char.IsSurrogate(c))
            {
                bodies.Add(Utf8(EnvelopeJson.Envelope(EnvelopeJson.Widget("property3", "\"a" + c + "b\""))));
            }

            var lower = string.Create(CultureInfo.InvariantCulture, $"\\u{unit:x4}");
            var upper = string.Create(CultureInfo.InvariantCulture, $"\\u{unit:X4}");
            bodies.Add(Utf8(EnvelopeJson.Envelope(EnvelopeJson.Widget("property5", $"\"{lower}x{upper}\""))));
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Every_short_escape_comes_out_canonically()
    {
        string[] escapes = ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0022", "\\u005C", "\\u002f", "\\u00e9", "\\u0041", "\\u2028", "\\u2029", "\\u0085", "\\u007f", "\\u0000", "\\u001F"];
        var bodies = escapes.Select(e => EnvelopeJson.Envelope(EnvelopeJson.Widget("property0", $"\"{e}\""), EnvelopeJson.Widget("property9", $"\"x{e}{e}y{e}\"")));

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Escaped_member_names_are_the_members_they_spell()
    {
        // Each member's name with one character, or every character, escaped; and names that unescape to no member.
        var bodies = new List<string>();
        foreach (var member in EnvelopeJson.Members)
        {
            for (var i = 0; i < member.Length; i++)
            {
                var one = member[..i] + string.Create(CultureInfo.InvariantCulture, $"\\u{(int)member[i]:x4}") + member[(i + 1)..];
                bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget().Replace($"\"{member}\"", $"\"{one}\"", StringComparison.Ordinal)));
            }

            var all = string.Concat(member.Select(c => string.Create(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}")));
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget().Replace($"\"{member}\"", $"\"{all}\"", StringComparison.Ordinal)));
        }

        bodies.Add("{\"\\u0077idgets\":[" + EnvelopeJson.Widget() + "]}");
        bodies.Add("{\"widget\\u0073\":[],\"\\u0077idgets\":[]}");
        bodies.Add("{\"widgets\\u0000\":[]}");
        bodies.Add("{\"widgets\":[{\"i\\u0064\\u0000\":1}]}");
        bodies.Add("{\"widgets\":[{\"\\/id\":1}]}");
        bodies.Add("{\"widgets\":[{\"\\u00e9\\ud83d\\ude00 .'[]\\n\":1}]}");
        bodies.Add("{\"widgets\":[{\"" + new string('x', 200) + "\\u0041\":1}]}");

        BothPaths.AssertSame(bodies);
    }

    [Theory]
    [MemberData(nameof(Planes))]
    public void Surrogate_pairs_of_a_plane_raw_and_escaped_are_answered_alike(int plane)
    {
        var raw = new StringBuilder();
        var escaped = new StringBuilder();
        for (var scalar = plane << 16; scalar < (plane + 1) << 16; scalar += 97)
        {
            var pair = char.ConvertFromUtf32(scalar);
            raw.Append(pair);
            escaped.Append(CultureInfo.InvariantCulture, $"\\u{(int)pair[0]:X4}\\u{(int)pair[1]:x4}");
        }

        BothPaths.AssertSame(
        [
            EnvelopeJson.Envelope(EnvelopeJson.Widget("property1", $"\"{raw}\"")),
            EnvelopeJson.Envelope(EnvelopeJson.Widget("property1", $"\"a{escaped}\"")),
            EnvelopeJson.Envelope(EnvelopeJson.Widget("property2", $"\"{raw}{escaped}\\n{raw}\"")),
        ]);
    }

    public static TheoryData<int> Planes() => [.. Enumerable.Range(1, 16)];

    [Fact]
    public void Lone_surrogates_escaped_or_encoded_are_refused_alike_in_values_and_names()
    {
        string[] escaped =
        [
            "\\uD800", "\\udbff", "\\uDC00", "\\udfff", "a\\uD800", "\\uDC00a", "\\uDC00\\uD800", "\\uD800\\uD800\\uDC00",
            "\\uD800\\uDC00\\uDC00", "\\uD800\\n\\uDC00", "\\uD800\\u0041", "\\uD800x\\uDC00", "\\uD83D\\uDE00\\uD83D",
        ];
        var bodies = new List<byte[]>();
        foreach (var text in escaped)
        {
            bodies.Add(Utf8(EnvelopeJson.Envelope(EnvelopeJson.Widget("property4", $"\"{text}\""))));
            bodies.Add(Utf8(EnvelopeJson.Envelope(EnvelopeJson.Widget("createdUtc", $"\"2024{text}\""))));
            bodies.Add(Utf8(EnvelopeJson.Envelope(EnvelopeJson.Widget("id", $"\"{text}\""))));
            bodies.Add(Utf8("{\"widgets\":[{\"id\":\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\",\"" + text + "\":1}]}"));
            bodies.Add(Utf8("{\"" + text + "\":[]}"));
            bodies.Add(Utf8("{\"widgets\":[],\"" + text + "x\":1}"));
        }

        // Surrogates encoded in UTF-8 (ED A0 80 and ED BF BF) are invalid UTF-8, in a value or in a name.
        foreach (byte[] encoded in new[] { new byte[] { 0xED, 0xA0, 0x80 }, [0xED, 0xBF, 0xBF] })
        {
            bodies.Add([.. Utf8("{\"widgets\":[{\"property0\":\"a"), .. encoded, .. Utf8("\"}]}")]);
            bodies.Add([.. Utf8("{\"widgets\":[{\"prop"), .. encoded, .. Utf8("\":\"a\"}]}")]);
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Invalid_utf8_is_answered_alike_wherever_it_is()
    {
        byte[][] sequences =
        [
            [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xC3], [0xE2, 0x82], [0xC3, 0x28], [0xE6, 0x9D], [0xC2, 0x85, 0xC2],
        ];
        var valid = Utf8(EnvelopeJson.Envelope(EnvelopeJson.Widget(), EnvelopeJson.Widget()));
        var bodies = new List<byte[]>();
        foreach (var sequence in sequences)
        {
            // Spliced in at every offset of a small valid body: in names, values, between tokens, at either end.
            for (var at = 0; at <= valid.Length; at += 3)
            {
                bodies.Add([.. valid.AsSpan(0, at), .. sequence, .. valid.AsSpan(at)]);
            }
        }

        BothPaths.AssertSame(bodies);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Long_strings_crossing_many_reads_at_every_alignment_are_answered_alike(int shift)
    {
        // Long enough to cross many reads and output chunks; the patterns put escapes and multi-byte characters on
        // every boundary in turn.
        string[] patterns = ["\u00e9", "\u4e2d", "\ud83d\ude00", "\\n", "\\u00e9", "\\ud83d\\ude00", "\u2028", "\\u2029", "\u0085\\\"", "x\\\\y"];
        var bodies = patterns.Select(p =>
            EnvelopeJson.Envelope(EnvelopeJson.Widget("property6", "\"" + new string('a', shift) + string.Concat(Enumerable.Repeat(p, 30_000 / p.Length)) + "\"")));

        BothPaths.AssertSame(bodies, seed: shift);
    }

    private static byte[] Utf8(string json) => Encoding.UTF8.GetBytes(json);
}
