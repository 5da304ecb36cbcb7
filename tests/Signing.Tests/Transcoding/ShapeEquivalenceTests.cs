using System.Text;
using Signing.Tests.Hostile;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// The envelope's shape: members in any order, duplicated, unknown, missing or of the wrong type, nesting, null widgets,
/// trailing content and bodies cut short. Where several faults are present, both paths must report the same one, the
/// first that System.Text.Json meets reading in order.
/// </summary>
public sealed class ShapeEquivalenceTests
{
    private static readonly string[] Members = EnvelopeJson.Members;

    // Values that differ per member, so a member written in the wrong place changes the bytes.
    private static string Distinct(string member) => member switch
    {
        "id" => "\"0F8FAD5B-D9CB-469F-A165-70867728950E\"",
        "createdUtc" => "\"2021-06-15T14:34:56.7890000+02:00\"",
        _ => $"\"value of {member}\"",
    };

    [Fact]
    public void Members_in_any_order_come_out_in_canonical_order()
    {
#pragma warning disable CA5394 // Not for security: reproducible orders.
        var random = new Random(5);
        var bodies = new List<string>();
        for (var rotation = 0; rotation < Members.Length; rotation++)
        {
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Skip(rotation).Concat(Members.Take(rotation)), Distinct)));
        }

        bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Reverse(), Distinct)));
        for (var i = 0; i < 200; i++)
        {
            var widgets = Enumerable.Range(0, random.Next(1, 4)).Select(_ => EnvelopeJson.Widget(Members.OrderBy(_ => random.Next()), Distinct));
            bodies.Add(EnvelopeJson.Envelope([.. widgets]));
        }
#pragma warning restore CA5394

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Whitespace_anywhere_changes_nothing_but_the_position_of_errors()
    {
        var valid = EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Reverse(), Distinct), EnvelopeJson.Widget());
        string[] spaces = [" ", "\n", "\r\n", "\t \n \r", "\n\n\n  "];
        var bodies = new List<string>();
        foreach (var space in spaces)
        {
            // Around every structural character, and then the same with a fault at the end, which must be located alike.
            var spaced = new StringBuilder();
            var inString = false;
            foreach (var c in valid)
            {
                inString ^= c == '"';
                spaced.Append(!inString && c is '{' or '}' or '[' or ']' or ',' or ':' ? $"{space}{c}{space}" : c);
            }

            bodies.Add(spaced.ToString());
            bodies.Add(spaced + "x");
            bodies.Add(spaced.ToString().Replace("\"property4\"", "\"property44\"", StringComparison.Ordinal));
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Duplicate_members_are_refused_after_their_second_value_as_the_object_path_refuses_them()
    {
        string[] seconds = ["SAME", "\"other\"", "null", "5", "[]", "\"6f9619ff-8b86-d011-b42d-00cf4fc964fe\"", "\"2024-03-10\"", "x"];
        var bodies = new List<string>();
        foreach (var member in Members)
        {
            foreach (var second in seconds)
            {
                var value = second == "SAME" ? EnvelopeJson.ValidValue(member) : second;
                foreach (var at in new[] { 0, 5, Members.Length })
                {
                    // The member twice, the second time at the start, the middle or the end of the widget.
                    var order = Members.ToList();
                    order.Insert(at, member);
                    var seen = 0;
                    bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(order, m => m == member && seen++ == (at <= Array.IndexOf(Members, member) ? 0 : 1) ? value : EnvelopeJson.ValidValue(m))));
                }
            }
        }

        bodies.Add("{\"widgets\":[],\"widgets\":[]}");
        bodies.Add("{\"widgets\":[],\"widgets\":[" + EnvelopeJson.Widget() + "]}");
        bodies.Add("{\"widgets\":[" + EnvelopeJson.Widget() + "],\"widgets\":[{\"x\":1}]}");
        bodies.Add("{\"widgets\":[null],\"widgets\":[null,5]}");
        bodies.Add("{\"widgets\":[],\"widgets\":null}");
        bodies.Add("{\"widgets\":[],\"widgets\":5}");
        bodies.Add("{\"widgets\":[],\"widgets\":[]");

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Unknown_and_missing_members_are_refused_alike()
    {
        var bodies = new List<string>
        {
            "{}", "{\"widgets\":[{}]}", "{\"Widgets\":[]}", "{\"widgets\":[],\"signature\":\"abc\"}", "{\"signature\":\"abc\",\"widgets\":[]}",
            "{\"$id\":\"1\",\"widgets\":[]}", "{\"widgets\":[{\"$type\":\"w\"}]}", "{\"widgets\":[{\"a b\":1}]}", "{\"widgets\":[{\"a.b\":1}]}",
            "{\"widgets\":[{\"a'b\":1}]}", "{\"widgets\":[{\"a\\\"b\":1}]}", "{\"widgets\":[{\"a\\u2028b\":1}]}", "{\"widgets\":[{\"[0]\":1}]}",
            "{\"widgets\":[{\"a Path: b\":1}]}", "{\"widgets\":[{\"" + new string('n', 300) + "\":1}]}", "{\"" + new string('n', 100_000) + "\":1}",
            "{\"widgets\":[{\"\":1}]}", "{\"\":1}",
        };
        foreach (var member in Members)
        {
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Where(m => m != member))));
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Where(m => m == member))));
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(), EnvelopeJson.Widget(Members.Where(m => m != member && m != "property9"))));
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Select(m => m == member ? char.ToUpperInvariant(m[0]) + m[1..] : m))));
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Select(m => m == member ? m + "x" : m))));
        }

        // Every subset of the first five members missing, so each shape of the message's list (and its cut-off) is met.
        for (var mask = 1; mask < 32; mask++)
        {
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(Members.Where((_, i) => i >= 5 || (mask & (1 << i)) == 0))));
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Values_of_the_wrong_type_are_refused_alike_wherever_they_are()
    {
        string[] values = ["5", "-1.5e308", "1e400", "0", "{\"a\":\"b\"}", "{}", "[\"a\"]", "[]", "true", "false", "null", "\"x\"", "[[[[", "{{"];
        var bodies = new List<string>();
        foreach (var value in values)
        {
            foreach (var member in Members)
            {
                bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(), EnvelopeJson.Widget(member, value)));
            }

            bodies.Add("{\"widgets\":" + value + "}");
            bodies.Add("{\"widgets\":[" + value + "]}");
            bodies.Add("{\"widgets\":[" + EnvelopeJson.Widget() + "," + value + "]}");
            bodies.Add(value);
            bodies.Add(" " + value + " ");
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Null_widgets_are_refused_only_after_every_other_fault()
    {
        var widget = EnvelopeJson.Widget();
        BothPaths.AssertSame(
        [
            "{\"widgets\":[null]}", "{\"widgets\":[" + widget + ",null]}", "{\"widgets\":[null," + widget + ",null]}",
            "{\"widgets\":[null,{\"x\":1}]}", "{\"widgets\":[null]} x", "{\"widgets\":[null],\"x\":1}", "{\"widgets\":[null]",
            "{\"widgets\":[null,5]}", "{\"widgets\":[null],\"widgets\":[]}", "null", " null\n", "null x", "null null", "nul",
        ]);
    }

    [Fact]
    public void Nesting_of_any_depth_anywhere_is_refused_alike()
    {
        string[] templates =
        [
            "ARRAYS", "{\"widgets\":ARRAYS}", "{\"widgets\":[ARRAYS]}", "{\"widgets\":[OBJECTS]}", "{\"widgets\":[{\"id\":ARRAYS}]}",
            "{\"widgets\":[{\"id\":OBJECTS}]}", "{\"widgets\":[{\"property0\":ARRAYS}]}", "{\"widgets\":[{\"createdUtc\":OBJECTS}]}",
            "{\"widgets\":[{\"unknown\":ARRAYS}]}", "{\"widgets\":[]}ARRAYS", "{\"widgets\":[]}OBJECTS", "{\"x\":OBJECTS}",
        ];
        var bodies = new List<string>();
        foreach (var depth in new[] { 1, 2, 62, 63, 64, 65, 66, 1_000 })
        {
            var arrays = new string('[', depth) + new string(']', depth);
            var objects = string.Concat(Enumerable.Repeat("{\"a\":", depth)) + "1" + new string('}', depth);
            bodies.AddRange(templates.Select(t => t.Replace("ARRAYS", arrays, StringComparison.Ordinal).Replace("OBJECTS", objects, StringComparison.Ordinal)));
            bodies.Add("{\"widgets\":" + new string('[', depth));
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Trailing_content_is_refused_alike()
    {
        var valid = EnvelopeJson.Envelope(EnvelopeJson.Widget());
        string[] suffixes =
        [
            "x", "}", "]", "{}", "[]", ",", ",{}", valid, "\0", "//c", "/*c*/", "null", "1", "\"s\"", " {", "\n]", "n", "nul", "nulx",
            "t", "tru", "f", "fals", "-", "1e", "\u00e9", "\ufeff", " \n\t\r", "\n\n x", "nx" + new string('y', 500), "n" + new string('\u00e9', 300),
        ];
        BothPaths.AssertSame(suffixes.Select(s => valid + s));
    }

    [Fact]
    public void Every_prefix_of_a_body_is_answered_alike()
    {
        // Cut short anywhere: inside names, escapes, values, literals, numbers and between tokens.
        var body = Encoding.UTF8.GetBytes(
            "{ \"widgets\" : [ " + EnvelopeJson.Widget(Members.Reverse(), Distinct).Replace("value of", "v\\u00e9\\n\\ud83d\\ude00 \u4e2d", StringComparison.Ordinal)
            + " , null , " + EnvelopeJson.Widget("property3", "[1, -2.5e3, true, false, null]") + " ] }  x");
        BothPaths.AssertSame(Enumerable.Range(1, body.Length).Select(length => body[..length]));
    }

    [Fact]
    public void Literals_and_numbers_cut_by_a_wrong_byte_quote_the_rest_of_the_body_alike()
    {
        // System.Text.Json quotes every byte after a broken literal; the message is cut at 200 characters.
        string[] literals = ["n", "nu", "nul", "nulL", "t", "tr", "tru", "truE", "f", "fa", "fals", "falsE", "-", "1.", "1e", "01", "1.e"];
        var bodies = new List<string>();
        foreach (var literal in literals)
        {
            foreach (var rest in new[] { "x", "x}", "x" + new string('y', 1_000) + "}", "\u00e9\u4e2d\ud83d\ude00" + new string('\u4e2d', 400) })
            {
                bodies.Add("{\"widgets\":" + literal + rest);
                bodies.Add("{\"widgets\":[" + literal + rest);
                bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget("property1", literal + rest)));
                bodies.Add(literal + rest);
            }
        }

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Every_case_of_the_hostile_corpus_is_answered_alike()
    {
        // Cases of the server tests' corpus (tests/Shared/Hostile), each given to both paths.
        BothPaths.AssertSame(HostileCorpus.All.Values.Select(c => c.Body));
    }

    [Fact]
    public void Generated_bodies_written_every_way_and_damaged_are_answered_alike()
    {
        // Valid envelopes written with members shuffled, whitespace and escapes anywhere, other Guid and instant forms,
        // members missing, doubled or of the wrong type, and a quarter of them damaged at the byte level.
        var bodies = new RandomBodies(seed: 2026);
        BothPaths.AssertSame(Enumerable.Range(0, 3_000).Select(_ => bodies.Next()));
    }
}
