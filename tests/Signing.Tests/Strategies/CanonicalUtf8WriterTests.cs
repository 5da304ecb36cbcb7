using System.Buffers;
using System.Text;
using Newtonsoft.Json;
using Signing.Generation;

namespace Signing.Tests.Strategies;

/// <summary>
/// The <c>utf8</c> strategy's writer against Newtonsoft itself: any byte it writes differently would be a different
/// signature for the same envelope.
/// </summary>
public sealed class CanonicalUtf8WriterTests
{
    [Fact]
    public void Every_utf16_code_unit_is_written_as_newtonsoft_writes_it()
    {
        var failures = new List<string>();
        for (var unit = 0; unit <= char.MaxValue && failures.Count < 10; unit++)
        {
            var envelope = Envelopes.WithText(((char)unit).ToString());
            var difference = Canonical.Difference(Canonical.FromNewtonsoft(envelope), Canonical.FromUtf8Writer(envelope));
            if (difference is not null)
            {
                failures.Add($"U+{unit:X4}: {difference}");
            }
        }

        Assert.True(failures.Count == 0, string.Join(Environment.NewLine, failures));
    }

    [Theory]
    [MemberData(nameof(Planes))]
    public void Every_surrogate_pair_of_a_plane_is_written_as_newtonsoft_writes_it(int plane)
    {
        var text = new StringBuilder(2 * 0x10000);
        for (var scalar = plane << 16; scalar < (plane + 1) << 16; scalar++)
        {
            text.Append(char.ConvertFromUtf32(scalar));
        }

        // Long enough to cross many chunk boundaries, at both alignments of a pair.
        Canonical.AssertSame(Envelopes.WithText(text.ToString()), $"plane {plane}");
        Canonical.AssertSame(Envelopes.WithText("a" + text), $"plane {plane}, shifted by one");
    }

    public static TheoryData<int> Planes()
    {
        var planes = new TheoryData<int>();
        for (var plane = 1; plane <= 16; plane++)
        {
            planes.Add(plane);
        }

        return planes;
    }

    [Fact]
    public void Lone_surrogates_become_the_replacement_character_as_in_newtonsoft()
    {
        // A fact over a list, not a theory: xunit cannot tell apart theory cases whose strings hold lone surrogates.
        string[] texts =
        [
            "\ud800", "\udbff", "\udc00", "\udfff", "a\ud800", "\udc00a", "\udc00\ud800", "\ud800\ud800\udc00",
            "\ud800\udc00\udc00", "\ud800\n\udc00", "\ud800\"\udc00", "\ud800\\", "\ud800\u2028", "\u0085\udfff",
        ];

        foreach (var text in texts)
        {
            Canonical.AssertSame(Envelopes.WithText(text), "UTF-16 " + Convert.ToHexString(Encoding.BigEndianUnicode.GetBytes(text)));
        }
    }

    [Theory]
    [MemberData(nameof(Alignments))]
    public void Text_crossing_chunk_boundaries_at_every_alignment_is_unchanged(int shift, int patternIndex)
    {
        var pattern = BoundaryPatterns[patternIndex];
        // Each pattern repeated past several 4 KB chunks; the shift moves where each boundary falls inside it.
        var text = new string('a', shift) + string.Concat(Enumerable.Repeat(pattern, 12_000 / pattern.Length));
        Canonical.AssertSame(Envelopes.WithText(text), $"pattern {patternIndex}, shift {shift}");
    }

    // By index in the theory, for the same reason as the lone surrogates above.
    private static readonly string[] BoundaryPatterns =
        ["\ud83d\ude00", "\u4e2d", "\u00e9", "\n", "\u0001", "\u2028", "\ud800", "x\udfff\u00e9\ud83d\ude00\"\\"];

    public static TheoryData<int, int> Alignments()
    {
        var data = new TheoryData<int, int>();
        for (var pattern = 0; pattern < BoundaryPatterns.Length; pattern++)
        {
            for (var shift = 0; shift < 6; shift++)
            {
                data.Add(shift, pattern);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Dates))]
    public void Dates_of_every_kind_and_precision_are_written_as_newtonsoft_writes_them(DateTime created) =>
        Canonical.AssertSame(Envelopes.WithDate(created), created.ToString("O") + " " + created.Kind);

    public static TheoryData<DateTime> Dates()
    {
        var data = new TheoryData<DateTime>();
        var second = new DateTime(2024, 2, 29, 23, 59, 58, DateTimeKind.Unspecified).Ticks;
        // 0 to 7 fractional digits, with and without trailing zeros inside the seven.
        long[] fractions = [0, 1_000_000, 1_200_000, 1_230_000, 1_234_000, 1_234_500, 1_234_560, 1_234_567, 1, 10, 100, 9_999_999, 5_000_000];
        var instants = fractions.Select(f => second + f).Concat(
        [
            DateTime.MinValue.Ticks,
            DateTime.MinValue.Ticks + 1,
            DateTime.MaxValue.Ticks,
            DateTime.MaxValue.Ticks - TimeSpan.TicksPerSecond,
            new DateTime(1, 12, 31).Ticks,
            new DateTime(999, 1, 1, 0, 0, 0).Ticks,
            new DateTime(1000, 1, 1, 0, 0, 0).Ticks,
            new DateTime(1900, 2, 28, 1, 2, 3).Ticks,
            new DateTime(2000, 2, 29, 10, 0, 0).Ticks,
            new DateTime(9999, 12, 31, 23, 59, 59).Ticks,
        ]);
        foreach (var ticks in instants)
        {
            data.Add(new DateTime(ticks, DateTimeKind.Utc));
            data.Add(new DateTime(ticks, DateTimeKind.Unspecified));
            // Local values are moved to UTC; keep them a day from the ends so the move stays in range in any zone.
            if (ticks > TimeSpan.TicksPerDay && ticks < DateTime.MaxValue.Ticks - TimeSpan.TicksPerDay)
            {
                data.Add(new DateTime(ticks, DateTimeKind.Local));
            }
        }

        return data;
    }

    [Fact]
    public void A_null_widget_and_an_empty_list_are_written_as_newtonsoft_writes_them()
    {
        Canonical.AssertSame(Envelopes.Of(), "no widgets");
        Canonical.AssertSame(Envelopes.Of(null, Envelopes.Widget(string.Empty, default), null), "null widgets");
    }

    [Fact]
    public void A_required_value_that_is_null_fails_as_it_fails_in_newtonsoft()
    {
        var nullList = new WidgetEnvelope { Widgets = null! };
        var nullString = Envelopes.Of(new Widget
        {
            Id = Guid.Empty,
            Property0 = "x",
            Property1 = "x",
            Property2 = "x",
            Property3 = "x",
            Property4 = "x",
            Property5 = "x",
            Property6 = "x",
            Property7 = "x",
            Property8 = "x",
            Property9 = null!,
            CreatedUtc = default,
        });

        foreach (var envelope in new[] { nullList, nullString })
        {
            var expected = Assert.Throws<JsonSerializationException>(() => Canonical.FromNewtonsoft(envelope));
            var refused = Assert.Throws<JsonSerializationException>(() => Canonical.FromUtf8Writer(envelope));
            // Newtonsoft's words, without the path it adds.
            Assert.Contains("requires a value", refused.Message, StringComparison.Ordinal);
            Assert.StartsWith(refused.Message.TrimEnd('.'), expected.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_missing_envelope_or_output_is_refused()
    {
        Assert.Throws<ArgumentNullException>(() => CanonicalUtf8Writer.Write(null!, new ArrayBufferWriter<byte>()));
        Assert.Throws<ArgumentNullException>(() => CanonicalUtf8Writer.Write(EnvelopeGenerator.Create(1, seed: 1), null!));
    }

    [Fact]
    public void Generated_envelopes_are_written_as_newtonsoft_writes_them()
    {
        for (var seed = 0; seed < 150; seed++)
        {
            foreach (var text in new[] { GeneratedText.Plain, GeneratedText.Awkward })
            {
                var count = seed % 7 == 0 ? 400 : seed % 23;
                Canonical.AssertSame(EnvelopeGenerator.Create(count, seed, text), $"{count} {text} widgets from seed {seed}");
            }
        }
    }

    [Fact]
    public void The_byte_count_returned_is_the_length_written()
    {
        var envelope = EnvelopeGenerator.Create(50, 7, GeneratedText.Awkward);
        var output = new System.Buffers.ArrayBufferWriter<byte>();

        var returned = CanonicalUtf8Writer.Write(envelope, output);

        Assert.Equal(output.WrittenCount, returned);
        Assert.Equal(Canonical.FromNewtonsoft(envelope).Length, output.WrittenCount);
    }
}
