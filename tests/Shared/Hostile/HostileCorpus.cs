using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using Newtonsoft.Json;
using Signing.Generation;

namespace Signing.Tests.Hostile;

/// <summary>
/// A generated, reproducible corpus of request bodies that must each be refused with a 4xx problem: every variant
/// comes from <see cref="Seed"/> and the repo's envelope generator, so the same names always mean the same bytes.
/// </summary>
/// <remarks>
/// Shared by the server tests, which send each body over HTTP, and the core tests, which give each to the object path
/// and the transcoder and compare what they answer.
/// </remarks>
/// <remarks>
/// Categories: random bytes and random JSON-ish text, invalid UTF-8 (and lone surrogate escapes), byte order marks
/// and UTF-16/32 encodings, deeply nested arrays, very long strings where they cannot be valid, values of the wrong
/// type where strings (or the widget array) belong, duplicate properties, and trailing garbage after a valid
/// envelope. Body-size cases (just over the limit, a huge Content-Length) need a host with a small limit or a raw
/// socket and live in their own tests.
/// </remarks>
internal static class HostileCorpus
{
    /// <summary>The one seed everything is generated from.</summary>
    public const int Seed = 20_261_121;

    // Put into a tree as a string value, then replaced in the serialized text by what a tree cannot hold.
    private const string Marker = "@@hostile@@";
    private const string Quoted = "\"" + Marker + "\"";

    private static readonly Lazy<IReadOnlyDictionary<string, HostileCase>> Cases = new(() =>
        Generate().ToDictionary(c => c.Name, StringComparer.Ordinal));

    /// <summary>Every case, by name.</summary>
    public static IReadOnlyDictionary<string, HostileCase> All => Cases.Value;

    /// <summary>The case called <paramref name="name"/>.</summary>
    public static HostileCase Get(string name) => All[name];

    /// <summary>The names of the cases whose body is at most <paramref name="maxLength"/> bytes, for a theory.</summary>
    public static TheoryData<string> Names(int maxLength = int.MaxValue)
    {
        var data = new TheoryData<string>();
        foreach (var c in All.Values.Where(c => c.Body.Length <= maxLength))
        {
            data.Add(c.Name);
        }

        return data;
    }

    private static IEnumerable<HostileCase> Generate() =>
        RandomBytes(new Random(Seed))
            .Concat(InvalidUtf8(new Random(Seed + 1)))
            .Concat(ByteOrderMarks())
            .Concat(DeepNesting())
            .Concat(LongStrings(new Random(Seed + 3)))
            .Concat(WrongTypes())
            .Concat(DuplicateProperties())
            .Concat(TrailingGarbage(new Random(Seed + 4)));

    // A valid two-widget envelope in canonical form, as text and as a tree to mutate.
    private static string ValidJson =>
        JsonConvert.SerializeObject(EnvelopeGenerator.Create(widgetCount: 2, seed: Seed % 1000), CanonicalJson.Settings);

    private static JsonObject ValidTree => (JsonObject)JsonNode.Parse(ValidJson)!;

    // The first widget's member names, in the order the canonical form writes them.
    private static string[] WidgetMembers => ((JsonObject)ValidTree["widgets"]![0]!).Select(p => p.Key).ToArray();

    private static HostileCase Case(string category, string variant, byte[] body) => new($"{category}/{variant}", category, body);

    private static HostileCase Case(string category, string variant, string json) => Case(category, variant, Encoding.UTF8.GetBytes(json));

    private static IEnumerable<HostileCase> RandomBytes(Random random)
    {
        for (var i = 0; i < 24; i++)
        {
            var body = new byte[random.Next(1, 3000)];
            random.NextBytes(body);
            yield return Case("random-bytes", $"{i:00}", body);
        }

        // Text made of JSON's own tokens, which gets further into the parser than noise does.
        string[] tokens = ["{", "}", "[", "]", ",", ":", "\"widgets\"", "\"id\"", "\"x\"", "0", "-1.5e3", "true", "null", " ", "\"", "\\"];
        for (var i = 0; i < 16; i++)
        {
            var text = new StringBuilder();
            var count = random.Next(2, 200);
            for (var t = 0; t < count; t++)
            {
                text.Append(tokens[random.Next(tokens.Length)]);
            }

            yield return Case("random-tokens", $"{i:00}", text.ToString());
        }
    }

    private static IEnumerable<HostileCase> InvalidUtf8(Random random)
    {
        (string Name, byte[] Bytes)[] sequences =
        [
            ("continuation-80", [0x80]), ("continuation-bf", [0xBF]), ("overlong-slash", [0xC0, 0xAF]),
            ("overlong-c1", [0xC1, 0xBF]), ("overlong-3-byte", [0xE0, 0x80, 0xAF]), ("surrogate-d800", [0xED, 0xA0, 0x80]),
            ("above-10ffff", [0xF4, 0x90, 0x80, 0x80]), ("five-byte", [0xF8, 0x88, 0x80, 0x80, 0x80]), ("fe", [0xFE]),
            ("ff", [0xFF]), ("truncated-2", [0xC3]), ("truncated-3", [0xE2, 0x82]),
        ];
        var members = WidgetMembers;
        foreach (var (name, bytes) in sequences)
        {
            // Inside a string value (a random string member of a widget), inside a member name, and between tokens.
            var member = members[random.Next(1, members.Length - 1)];
            var json = ValidJson;
            var value = json.IndexOf($"\"{member}\":\"", StringComparison.Ordinal) + member.Length + 4;
            yield return Case("invalid-utf8", $"{name}-in-value", Splice(json, value, bytes));
            yield return Case("invalid-utf8", $"{name}-in-name", Splice(json, json.IndexOf("\"widgets\"", StringComparison.Ordinal) + 3, bytes));
            yield return Case("invalid-utf8", $"{name}-between-tokens", Splice(json, json.IndexOf('[', StringComparison.Ordinal) + 1, bytes));
        }

        string[] surrogates = ["\\uD800", "\\uDFFF", "\\uD800x", "\\uDC00\\uD800"];
        for (var i = 0; i < surrogates.Length; i++)
        {
            var tree = ValidTree;
            tree["widgets"]![0]![members[1]] = Marker;
            yield return Case("lone-surrogate", $"{i}", tree.ToJsonString().Replace(Marker, surrogates[i], StringComparison.Ordinal));
        }
    }

    private static IEnumerable<HostileCase> ByteOrderMarks()
    {
        var json = ValidJson;
        var utf8 = Encoding.UTF8.GetBytes(json);
        byte[] bom = [0xEF, 0xBB, 0xBF];
        yield return Case("bom", "utf8-bom", [.. bom, .. utf8]);
        yield return Case("bom", "utf8-bom-twice", [.. bom, .. bom, .. utf8]);
        yield return Case("bom", "utf8-bom-after-brace", [.. utf8.AsSpan(0, 1), .. bom, .. utf8.AsSpan(1)]);
        yield return Case("bom", "utf8-bom-at-end", [.. utf8, .. bom]);
        yield return Case("bom", "utf16le-with-bom", [.. new UnicodeEncoding(false, true).GetPreamble(), .. Encoding.Unicode.GetBytes(json)]);
        yield return Case("bom", "utf16be-with-bom", [.. new UnicodeEncoding(true, true).GetPreamble(), .. Encoding.BigEndianUnicode.GetBytes(json)]);
        yield return Case("bom", "utf16le-without-bom", Encoding.Unicode.GetBytes(json));
        yield return Case("bom", "utf32le-with-bom", [.. Encoding.UTF32.GetPreamble(), .. Encoding.UTF32.GetBytes(json)]);
    }

    private static IEnumerable<HostileCase> DeepNesting()
    {
        var member = WidgetMembers[1];
        foreach (var depth in new[] { 65, 66, 100, 1_000, 10_000, 100_000 })
        {
            var arrays = new string('[', depth) + new string(']', depth);
            yield return Case("deep-nesting", $"root-{depth}", arrays);
            yield return Case("deep-nesting", $"widgets-value-{depth}", $"{{\"widgets\":{arrays}}}");
            yield return Case("deep-nesting", $"in-widgets-{depth}", $"{{\"widgets\":[{arrays}]}}");
            yield return Case("deep-nesting", $"unclosed-{depth}", $"{{\"widgets\":{new string('[', depth)}");

            var tree = ValidTree;
            tree["widgets"]![0]![member] = Marker;
            yield return Case("deep-nesting", $"in-member-{depth}", tree.ToJsonString().Replace(Quoted, arrays, StringComparison.Ordinal));
        }
    }

    private static IEnumerable<HostileCase> LongStrings(Random random)
    {
        var members = WidgetMembers;
        foreach (var length in new[] { 64 * 1024, 1024 * 1024, 4 * 1024 * 1024 })
        {
            var text = Letters(random, length);
            var size = length.ToString(CultureInfo.InvariantCulture);
            yield return Case("long-string", $"unterminated-{size}", $"{{\"widgets\":[{{\"{members[1]}\":\"{text}");
            yield return Case("long-string", $"as-widgets-{size}", $"{{\"widgets\":\"{text}\"}}");
            yield return Case("long-string", $"as-member-name-{size}", Replaced(members[1], null, text));
            yield return Case("long-string", $"with-control-char-{size}", Replaced(members[2], text + "\u0001", null, raw: true));
            yield return Case("long-string", $"with-bad-escape-{size}", Replaced(members[2], text + "\\x", null, raw: true));

            // Members that hold a Guid and an instant cannot take any long string.
            yield return Case("long-string", $"as-id-{size}", Replaced("id", text, null));
            yield return Case("long-string", $"as-instant-{size}", Replaced(members[^1], text, null));
        }
    }

    private static IEnumerable<HostileCase> WrongTypes()
    {
        (string Name, string Json)[] values =
        [
            ("integer", "5"), ("negative-real", "-1.5e308"), ("huge-exponent", "1e400"), ("object", "{\"a\":\"b\"}"),
            ("empty-object", "{}"), ("array", "[\"a\"]"), ("true", "true"), ("null", "null"),
        ];
        foreach (var member in WidgetMembers)
        {
            foreach (var (name, json) in values)
            {
                var tree = ValidTree;
                tree["widgets"]![1]![member] = Marker;
                yield return Case("wrong-type", $"{member}-{name}", tree.ToJsonString().Replace(Quoted, json, StringComparison.Ordinal));
            }
        }

        foreach (var (name, json) in values.Concat([("string", "\"widgets\"")]))
        {
            yield return Case("wrong-type", $"widgets-{name}", $"{{\"widgets\":{json}}}");
            yield return Case("wrong-type", $"widget-{name}", $"{{\"widgets\":[{json}]}}");
            yield return Case("wrong-type", $"root-{name}", json);
        }

        yield return Case("wrong-type", "root-array-of-envelope", $"[{ValidJson}]");
    }

    private static IEnumerable<HostileCase> DuplicateProperties()
    {
        var json = ValidJson;
        foreach (var member in WidgetMembers)
        {
            // The first widget's member again, once with its own value and once with another widget's.
            var tree = ValidTree;
            var first = tree["widgets"]![0]!;
            var same = first[member]!.ToJsonString();
            var other = tree["widgets"]![1]![member]!.ToJsonString();
            var at = json.IndexOf('{', json.IndexOf('[', StringComparison.Ordinal)) + 1;
            yield return Case("duplicate-property", $"{member}-same-value", json.Insert(at, $"\"{member}\":{same},"));
            yield return Case("duplicate-property", $"{member}-other-value", json.Insert(at, $"\"{member}\":{other},"));

            // A name that differs only in case is not the same member, and an unknown member is refused.
            var upper = char.ToUpperInvariant(member[0]) + member[1..];
            yield return Case("duplicate-property", $"{member}-other-case", json.Insert(at, $"\"{upper}\":{same},"));
        }

        yield return Case("duplicate-property", "widgets-twice", json[..^1] + ",\"widgets\":[]}");
        yield return Case("duplicate-property", "widgets-twice-same", json[..^1] + "," + json[1..]);
        yield return Case("duplicate-property", "widgets-other-case", json[..^1] + ",\"Widgets\":[]}");
    }

    private static IEnumerable<HostileCase> TrailingGarbage(Random random)
    {
        var json = ValidJson;
        string[] suffixes = ["x", "}", "]", "{}", "[]", ",", ",{}", json, "\0", "//c", "/*c*/", "null", "1", "\"s\"", " {", "\n]"];
        for (var i = 0; i < suffixes.Length; i++)
        {
            yield return Case("trailing-garbage", $"text-{i:00}", json + suffixes[i]);
        }

        var utf8 = Encoding.UTF8.GetBytes(json);
        for (var i = 0; i < 8; i++)
        {
            var garbage = new byte[random.Next(1, 64)];
            random.NextBytes(garbage);

            // Whitespace after the document is allowed, so the garbage starts with something that is not.
            garbage[0] = (byte)'#';
            yield return Case("trailing-garbage", $"bytes-{i:00}", [.. utf8, .. garbage]);
        }
    }

    // The valid envelope with the first widget's member replaced by a string value or renamed, as UTF-8. With raw, the
    // value is written between quotes as it is, unescaped.
    private static string Replaced(string member, string? value, string? newName, bool raw = false)
    {
        var tree = ValidTree;
        var widget = (JsonObject)tree["widgets"]![0]!;
        if (newName is not null)
        {
            var old = widget[member]!.DeepClone();
            widget.Remove(member);
            widget[newName] = old;
        }

        if (value is null)
        {
            return tree.ToJsonString();
        }

        widget[member] = raw ? Marker : value;
        var text = tree.ToJsonString();
        return raw ? text.Replace(Quoted, "\"" + value + "\"", StringComparison.Ordinal) : text;
    }

    private static byte[] Splice(string json, int at, byte[] bytes)
    {
        var utf8 = Encoding.UTF8.GetBytes(json);
        return [.. utf8.AsSpan(0, at), .. bytes, .. utf8.AsSpan(at)];
    }

    private static string Letters(Random random, int length)
    {
        var text = new char[length];
        for (var i = 0; i < length; i++)
        {
            text[i] = (char)('a' + random.Next(26));
        }

        return new string(text);
    }
}
