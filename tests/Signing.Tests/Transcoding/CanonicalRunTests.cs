using System.Text;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// What <see cref="CanonicalRun"/> takes as widgets in canonical layout, held directly: a widget it misses is read by a
/// slower path that writes the same bytes, so only these tests can see a miss; one it takes wrongly the differential
/// tests see too.
/// </summary>
public sealed class CanonicalRunTests
{
    public static TheoryData<string, string> CanonicalWidgets() => new()
    {
        { "canonical", EnvelopeJson.Widget() },
        { "empty first string", EnvelopeJson.Widget("property0", "\"\"") },
        { "empty last string", EnvelopeJson.Widget("property9", "\"\"") },
        { "space, tilde and del", EnvelopeJson.Widget("property3", "\" ~\u007f!\"") },
        { "quote-like text", EnvelopeJson.Widget("property4", "\"',:{}[]\"") },
        { "instant to the second", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56Z\"") },
        { "instant to 7 digits", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56.1234567Z\"") },
    };

    public static TheoryData<string, string> OtherWidgets()
    {
        var widget = EnvelopeJson.Widget();
        var cases = new TheoryData<string, string>
        {
            { "reversed", EnvelopeJson.Widget(EnvelopeJson.Members.Reverse()) },
            { "two members swapped", widget.Replace("\"property3\":\"3\",\"property4\":\"4\"", "\"property4\":\"4\",\"property3\":\"3\"", StringComparison.Ordinal) },
            { "first two swapped", EnvelopeJson.Widget(["property0", "id", .. EnvelopeJson.Members[2..]]) },
            { "last two swapped", EnvelopeJson.Widget([.. EnvelopeJson.Members[..10], "createdUtc", "property9"]) },
            { "member missing", EnvelopeJson.Widget(EnvelopeJson.Members.Where(m => m != "property5")) },
            { "member added", widget[..^1] + ",\"extra\":\"x\"}" },
            { "short guid", EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964f\"") },
            { "long guid", EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964ff0\"") },
            { "guid without dashes", EnvelopeJson.Widget("id", "\"6f9619ff08b860d0110b42d000cf4fc964ff\"") },
            { "guid with a letter past f", EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964fg\"") },
            { "guid with a quote", EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc96\"ff\"") },
            { "guid with a control byte", EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964\u0016f\"") },
            { "guid not a string", EnvelopeJson.Widget("id", "1234567890123456789012345678901234567890") },
            { "guid unquoted at the end", EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964ff ") },
            { "instant with an offset", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56+02:00\"") },
            { "instant with a trailing zero", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56.780Z\"") },
            { "instant not an instant", EnvelopeJson.Widget("createdUtc", "\"not an instant\"") },
            { "instant empty", EnvelopeJson.Widget("createdUtc", "\"\"") },
            { "instant not a string", EnvelopeJson.Widget("createdUtc", "null") },
            { "instant with an escape", EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56\\u005a\"") },
            { "string with an escape", EnvelopeJson.Widget("property0", "\"\\u0041\"") },
            { "string not a string", EnvelopeJson.Widget("property9", "9") },
            { "non-ascii string", EnvelopeJson.Widget("property5", "\"caf\u00e9\"") },
            { "control character", EnvelopeJson.Widget("property5", "\"\t\"") },
            { "no closing brace", widget[..^1] + "," },
            { "not a widget", "[" + widget[1..^1] + "]" },
        };

        // A space before or after each structural character, one at a time: still JSON, no longer canonical.
        var inString = false;
        for (var at = 0; at < widget.Length; at++)
        {
            inString ^= widget[at] == '"';
            if (!inString && widget[at] is '{' or ',' or ':')
            {
                cases.Add($"space after byte {at}", widget[..(at + 1)] + " " + widget[(at + 1)..]);
            }

            if (!inString && widget[at] is ',' or ':' or '}')
            {
                cases.Add($"space before byte {at}", widget[..at] + " " + widget[at..]);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(CanonicalWidgets))]
    public void A_widget_in_canonical_layout_is_taken_to_its_closing_brace(string name, string widget)
    {
        foreach (var after in new[] { "", ",", "]}", ", " + EnvelopeJson.Widget(), ",{" })
        {
            AssertRun(widget + after, Utf8(widget).Length, widgets: 1, upperCaseGuid: -1, $"{name}, followed by '{after}'");
        }
    }

    [Theory]
    [MemberData(nameof(CanonicalWidgets))]
    public void Widgets_in_canonical_layout_are_taken_together_up_to_the_first_that_is_not(string name, string widget)
    {
        var canonical = EnvelopeJson.Widget();
        var run = string.Join(",", canonical, widget, canonical, widget);
        foreach (var after in new[] { "", "]}", ",{}", "," + EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56+02:00\""), " ," + canonical })
        {
            AssertRun(run + after, Utf8(run).Length, widgets: 4, upperCaseGuid: -1, $"{name}, followed by '{after}'");
        }
    }

    [Theory]
    [MemberData(nameof(OtherWidgets))]
    public void A_widget_in_any_other_layout_or_with_a_value_to_rewrite_is_not_taken(string name, string widget)
    {
        AssertRun(widget + "," + EnvelopeJson.Widget(), 0, widgets: 0, upperCaseGuid: -1, name);
    }

    [Theory]
    [MemberData(nameof(OtherWidgets))]
    public void A_run_ends_before_a_widget_that_is_not_in_canonical_layout(string name, string widget)
    {
        var run = EnvelopeJson.Widget() + "," + EnvelopeJson.Widget();
        AssertRun(run + "," + widget + "," + EnvelopeJson.Widget(), Utf8(run).Length, widgets: 2, upperCaseGuid: -1, name);
    }

    [Fact]
    public void A_guid_in_upper_case_ends_the_run_with_its_widget_to_be_lowered()
    {
        var upper = EnvelopeJson.Widget("id", "\"6F9619FF-8B86-D011-B42D-00CF4FC964FF\"");
        var mixed = EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964fF\"");
        var canonical = EnvelopeJson.Widget();
        AssertRun(upper + "," + canonical, Utf8(upper).Length, widgets: 1, upperCaseGuid: 7, "first");
        AssertRun(canonical + "," + mixed + "," + canonical, Utf8(canonical + "," + mixed).Length, widgets: 2, upperCaseGuid: Utf8(canonical).Length + 1 + 7, "second");
    }

    [Fact]
    public void A_run_holds_no_more_widgets_than_it_may()
    {
        var widget = EnvelopeJson.Widget();
        var bytes = Utf8(string.Join(",", Enumerable.Repeat(widget, 4)));
        for (var most = 1; most <= 5; most++)
        {
            var widgets = Math.Min(most, 4);
            var length = (widgets * (Utf8(widget).Length + 1)) - 1;
            Assert.Equal((length, widgets), (CanonicalRun.Measure(bytes, most, afterCut: false, out var taken, out _), taken));
            Assert.Equal((length, widgets), (CanonicalRun.Measure(bytes, most, afterCut: true, out taken, out _), taken));
        }
    }

    [Fact]
    public void A_long_run_is_taken_whole_and_ends_at_the_first_widget_that_is_not_canonical_wherever_it_is()
    {
        // Long enough that the walk checks its widgets' heads and instants in several goes.
        const int count = 200;
        var canonical = EnvelopeJson.Widget();
        var upper = EnvelopeJson.Widget("id", "\"6F9619FF-8B86-D011-B42D-00CF4FC964FF\"");
        var offset = Utf8(canonical).Length + 1;
        string Run(int at, string widget) => string.Join(",", Enumerable.Range(0, count).Select(i => i == at ? widget : canonical));

        string[] others =
        [
            EnvelopeJson.Widget(EnvelopeJson.Members.Reverse()),
            EnvelopeJson.Widget("createdUtc", "\"2024-03-10T10:34:56.780Z\""),
            EnvelopeJson.Widget("id", "\"6f9619ff-8b86-d011-b42d-00cf4fc964f\""),

            // Bytes no plain string holds, found after the walk's blocks are read: wherever in a walk their widget is,
            // the run ends before it.
            EnvelopeJson.Widget("property0", "\"\\u0041\""),
            EnvelopeJson.Widget("property5", "\"caf\u00e9\""),
            EnvelopeJson.Widget("property9", "\"\t\""),
            EnvelopeJson.Widget("property9", "\"x\u007fx\u0080\""),
        ];

        AssertRun(Run(-1, canonical), (count * offset) - 1, widgets: count, upperCaseGuid: -1, "all canonical");
        foreach (var at in new[] { 1, 2, 3, 7, 8, 9, 62, 63, 64, 65, 127, 128, 129, 199 })
        {
            foreach (var other in others)
            {
                AssertRun(Run(at, other), (at * offset) - 1, widgets: at, upperCaseGuid: -1, $"not canonical at {at}: {other}");
            }

            AssertRun(Run(at, upper), ((at + 1) * offset) - 1, widgets: at + 1, upperCaseGuid: (at * offset) + 7, $"upper case at {at}");
        }

        var bytes = Utf8(Run(-1, canonical));
        foreach (var most in new[] { 7, 8, 9, 63, 64, 65, 128, 130 })
        {
            Assert.Equal(((most * offset) - 1, most), (CanonicalRun.Measure(bytes, most, afterCut: false, out var taken, out _), taken));
            Assert.Equal(((most * offset) - 1, most), (CanonicalRun.Measure(bytes, most, afterCut: true, out taken, out _), taken));
        }
    }

    [Fact]
    public void A_widget_cut_short_anywhere_is_not_taken_nor_ends_a_run_early()
    {
        var widget = EnvelopeJson.Widget();
        var bytes = Utf8(widget + "," + widget);
        var first = Utf8(widget).Length;
        for (var length = 0; length < bytes.Length; length++)
        {
            var expected = length < first ? 0 : first;
            AssertRun(bytes.AsSpan(0, length), expected, widgets: expected == 0 ? 0 : 1, upperCaseGuid: -1, $"cut to {length} bytes");
        }
    }

    [GuardedMemoryFact]
    public void No_load_reads_past_the_buffer_or_before_it_wherever_the_buffer_ends()
    {
        // The loads of 64 and 16 bytes are kept within the buffer by their own bounds checks, not by the span's, and a
        // load past the end would go unseen in an array with more bytes after it: here the bytes end (or start) at a
        // page the process may not touch, so such a load stops the test run. Every length of a run of three widgets, so
        // that its end falls everywhere in a widget and a block; an upper-case Guid and a long value for the other paths.
        var widgets = new[]
        {
            EnvelopeJson.Widget(),
            EnvelopeJson.Widget("id", "\"6F9619FF-8B86-D011-B42D-00CF4FC964FF\""),
            EnvelopeJson.Widget("property4", "\"" + new string('v', 100) + "\""),
        };
        foreach (var widget in widgets)
        {
            var run = Utf8(string.Join(",", widget, EnvelopeJson.Widget(), widget));
            for (var length = 0; length <= run.Length; length++)
            {
                foreach (var afterCut in new[] { false, true })
                {
                    using (var guarded = GuardedMemory.EndingAtAGuard(run.AsSpan(0, length)))
                    {
                        CanonicalRun.Measure(guarded.Bytes, int.MaxValue, afterCut, out _, out _);
                    }

                    using (var guarded = GuardedMemory.StartingAtAGuard(run.AsSpan(0, length)))
                    {
                        CanonicalRun.Measure(guarded.Bytes, int.MaxValue, afterCut, out _, out _);
                    }
                }
            }
        }
    }

    [GuardedMemoryFact]
    public void No_load_reads_past_the_buffer_where_quotes_crowd_its_end()
    {
        // Quotes count as closing ones wherever they are, so a canonical head, or a whole widget and a comma, followed by
        // a run of quotes gives a "widget" whose last prefix or whose start lies within a load of the buffer's end:
        // only the bound checked before the prefixes' loads, and the head's load coming after them, keep those in the
        // buffer (see the test above for how a load past it shows).
        var widget = EnvelopeJson.Widget();
        foreach (var before in new[] { widget[..58], widget + "," })
        {
            for (var quotes = 0; quotes <= 80; quotes++)
            {
                foreach (var after in new[] { "", "x", "xx", "},", new string('x', 20) })
                {
                    var bytes = Utf8(before + new string('"', quotes) + after);
                    using var guarded = GuardedMemory.EndingAtAGuard(bytes);
                    CanonicalRun.Measure(guarded.Bytes, int.MaxValue, afterCut: false, out _, out _);
                    CanonicalRun.Measure(guarded.Bytes, int.MaxValue, afterCut: true, out _, out _);
                }
            }
        }
    }

    [Fact]
    public void A_value_of_any_length_is_taken_wherever_its_closing_quote_falls()
    {
        // The quotes are found 64 bytes at a time, the last 64 loaded from the buffer's end: every length from empty to
        // past a block, in every string member, so that each closing quote falls in every place of a block, and the
        // run first and last in the buffer.
        foreach (var member in EnvelopeJson.Members[1..^1])
        {
            for (var length = 0; length <= 70; length++)
            {
                var widget = EnvelopeJson.Widget(member, "\"" + new string('v', length) + "\"");
                var two = widget + "," + widget;
                foreach (var after in new[] { "", "]}", " ," + EnvelopeJson.Widget() })
                {
                    AssertRun(two + after, Utf8(two).Length, widgets: 2, upperCaseGuid: -1, $"{member} of {length} bytes, followed by '{after}'");
                }
            }
        }
    }

    [Fact]
    public void Widgets_whose_strings_are_all_empty_are_taken_though_a_block_holds_five_of_their_closing_quotes()
    {
        // A closing quote every 15 bytes, the closest canonical values allow: some 64-byte blocks hold five, one more than
        // the walk writes down without a loop.
        var widget = EnvelopeJson.Widget(EnvelopeJson.Members, member => member is "id" or "createdUtc" ? EnvelopeJson.ValidValue(member) : "\"\"");
        var run = string.Join(",", Enumerable.Repeat(widget, 40));
        AssertRun(run + "]}", Utf8(run).Length, widgets: 40, upperCaseGuid: -1, "forty widgets of empty strings");
    }

    [Fact]
    public void Quotes_crowded_after_a_widget_end_the_run_there()
    {
        // Sixteen closing quotes by count in every block after the widget: as many as a block can hold, all written down.
        var widget = EnvelopeJson.Widget();
        foreach (var quotes in new[] { 1, 63, 64, 65, 1000 })
        {
            AssertRun(widget + "," + new string('"', quotes), Utf8(widget).Length, widgets: 1, upperCaseGuid: -1, $"{quotes} quotes after");
            AssertRun(widget + ",{" + new string('"', quotes), Utf8(widget).Length, widgets: 1, upperCaseGuid: -1, $"a brace and {quotes} quotes after");
        }
    }

    [Fact]
    public void A_widget_with_any_byte_outside_its_values_changed_is_not_taken()
    {
        // The braces, commas, colons, names and every quote, each replaced in turn by a letter: the text stays plain,
        // the layout is no longer canonical (a name no widget has, a value that runs on, or no JSON at all). In the
        // first widget nothing is taken; in the second, only the first.
        var layout = new List<(string Text, bool IsValue)>();
        foreach (var member in EnvelopeJson.Members)
        {
            layout.Add(((member == EnvelopeJson.Members[0] ? "{" : ",") + $"\"{member}\":\"", false));
            layout.Add((EnvelopeJson.ValidValue(member)[1..^1], true));
            layout.Add(("\"", false));
        }

        layout.Add(("}", false));
        var widget = string.Concat(layout.Select(part => part.Text));
        Assert.Equal(EnvelopeJson.Widget(), widget);
        var first = Utf8(widget).Length;

        var at = 0;
        foreach (var (text, isValue) in layout)
        {
            foreach (var character in text)
            {
                if (!isValue)
                {
                    var changed = (byte)(character == 'x' ? 'y' : 'x');
                    var bytes = Utf8(widget + "," + widget + "," + widget);
                    bytes[at] = changed;
                    AssertRun(bytes, 0, widgets: 0, upperCaseGuid: -1, $"byte {at} ('{character}') of the first changed");
                    bytes = Utf8(widget + "," + widget + "," + widget);
                    bytes[first + 1 + at] = changed;
                    AssertRun(bytes, first, widgets: 1, upperCaseGuid: -1, $"byte {at} ('{character}') of the second changed");
                }

                at++;
            }
        }
    }

    [Fact]
    public void A_byte_no_string_holds_after_the_run_does_not_end_it_early_wherever_it_falls()
    {
        // The last block is loaded from the buffer's end, and where its first such byte is counted from the block: a
        // run whose end is in that block is taken whole when the byte comes after it, at any distance.
        var widget = EnvelopeJson.Widget();
        var run = widget + "," + widget;
        foreach (var refused in new[] { "\u0001", "\\", "\u00e9", "\u007f\u0080" })
        {
            for (var before = 0; before <= 40; before++)
            {
                AssertRun(run + new string('x', before) + refused, Utf8(run).Length, widgets: 2, upperCaseGuid: -1, $"'{refused}' {before} bytes after");
            }
        }
    }

    [Fact]
    public void A_value_holding_any_byte_is_taken_only_if_a_plain_string_holds_it_whether_its_block_is_the_last_or_not()
    {
        // Such bytes are looked for two ways: in the blocks of a walk's loop by their running minimums, in the buffer's
        // last block by a mask of its own. Each byte value, in a value among the loop's blocks (the second widget of a
        // long run) and in the last block (the last widget's last string, then 0 to 63 bytes of padding), is taken by
        // both exactly when a plain string holds it: printable ASCII and DEL, less the backslash (the quote would end
        // the value).
        var widget = EnvelopeJson.Widget();
        var marked = EnvelopeJson.Widget("property9", "\"ab?cd\"");
        var at = Utf8(marked).AsSpan().IndexOf("ab?cd"u8) + 2;
        var others = string.Join(",", Enumerable.Repeat(widget, 20));
        for (var value = 0; value <= byte.MaxValue; value++)
        {
            if (value == '"')
            {
                continue;
            }

            var plain = value is >= ' ' and <= 0x7f && value != '\\';
            var inLoop = Utf8(widget + "," + marked + "," + others);
            inLoop[Utf8(widget).Length + 1 + at] = (byte)value;
            AssertRun(inLoop, plain ? inLoop.Length : Utf8(widget).Length, widgets: plain ? 22 : 1, upperCaseGuid: -1, $"byte {value} in the loop's blocks");

            for (var padding = 0; padding < 64; padding++)
            {
                var run = widget + "," + widget + "," + marked;
                var inLast = Utf8(run + new string('x', padding));
                inLast[Utf8(widget + "," + widget + ",").Length + at] = (byte)value;
                var expected = plain ? Utf8(run).Length : Utf8(widget + "," + widget).Length;
                AssertRun(inLast, expected, widgets: plain ? 3 : 2, upperCaseGuid: -1, $"byte {value} in the last block, {padding} bytes of padding");
            }
        }
    }

    [Fact]
    public void A_comma_between_widgets_changed_to_any_other_byte_ends_the_run()
    {
        var widget = EnvelopeJson.Widget();
        var first = Utf8(widget).Length;
        for (var value = 0; value <= byte.MaxValue; value++)
        {
            var bytes = Utf8(widget + "," + widget);
            bytes[first] = (byte)value;
            var expected = value == ',' ? bytes.Length : first;
            AssertRun(bytes, expected, widgets: value == ',' ? 2 : 1, upperCaseGuid: -1, $"byte {value} between");
        }
    }

    // Walks that grow with the run and walks of full length from the start find the same run.
    private static void AssertRun(ReadOnlySpan<byte> buffer, int length, int widgets, int upperCaseGuid, string because)
    {
        foreach (var afterCut in new[] { false, true })
        {
            var measured = CanonicalRun.Measure(buffer, int.MaxValue, afterCut, out var measuredWidgets, out var measuredGuid);
            Assert.True(
                (measured, measuredWidgets, measuredGuid) == (length, widgets, upperCaseGuid),
                $"{because}, {(afterCut ? "after a cut" : "first")}: measured {(measured, measuredWidgets, measuredGuid)}, expected {(length, widgets, upperCaseGuid)}");
        }
    }

    private static void AssertRun(string buffer, int length, int widgets, int upperCaseGuid, string because) =>
        AssertRun(Utf8(buffer), length, widgets, upperCaseGuid, because);

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
