using System.Buffers.Text;
using System.Globalization;
using System.Text;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Three things <see cref="PlainWidget"/> recognizes, held one by one: an instant already in canonical form
/// (<see cref="CanonicalInstant"/>), a Guid,
/// and the widget that follows a copied one (the fourth, a widget in canonical layout, is
/// <see cref="CanonicalRunTests"/>'s). A missed instant costs speed, not bytes (the slower branch writes the same), so
/// only these tests can see one.
/// </summary>
public sealed class PlainWidgetRecognitionTests
{
    private const string InstantFormat = "yyyy-MM-dd'T'HH:mm:ss.FFFFFFF'Z'";

    [Theory]
    [InlineData("2024-03-10T10:34:56Z")]
    [InlineData("2024-03-10T10:34:56.7Z")]
    [InlineData("2024-03-10T10:34:56.789Z")]
    [InlineData("2024-03-10T10:34:56.0000001Z")]
    [InlineData("2024-03-10T10:34:56.1234567Z")]
    [InlineData("0001-01-01T00:00:00Z")]
    [InlineData("9999-12-31T23:59:59.9999999Z")]
    [InlineData("2024-03-10T10:34:56.70Z")]
    [InlineData("2024-03-10T10:34:56.0Z")]
    [InlineData("2024-03-10T10:34:56.Z")]
    [InlineData("2024-03-10T10:34:56.12345678Z")]
    [InlineData("2024-03-10T10:34:56.1a3Z")]
    [InlineData("2024-03-10T10:34:56,7Z")]
    [InlineData("2024-03-10T10:34:5Z")]
    [InlineData("2024-03-10T10:34:56")]
    [InlineData("2024-03-10T10:34:56+00:00")]
    [InlineData("2024-03-10t10:34:56Z")]
    [InlineData("2024-03-10T10:34:56z")]
    [InlineData("2024-03-10 10:34:56Z")]
    [InlineData("2024/03-10T10:34:56Z")]
    [InlineData("2024-03/10T10:34:56Z")]
    [InlineData("2024-03-10T10.34:56Z")]
    [InlineData("2024-03-10T10:34.56Z")]
    [InlineData("0000-01-01T00:00:00Z")]
    [InlineData("2O24-03-10T10:34:56Z")]
    [InlineData("-024-03-10T10:34:56Z")]
    [InlineData("2024-0a-10T10:34:56Z")]
    [InlineData("2024-03-1xT10:34:56Z")]
    [InlineData("2024-03-10T1x:34:56Z")]
    [InlineData("2024-03-10T10:3x:56Z")]
    [InlineData("2024-03-10T10:34:5xZ")]
    [InlineData("")]
    [InlineData("Z")]
    public void An_instant_is_canonical_exactly_when_formatting_its_value_gives_it_back(string text)
    {
        Assert.Equal(IsCanonical(text), CanonicalInstant.Matches(Utf8(text)));
    }

    [Fact]
    public void An_instant_of_any_length_with_any_byte_changed_is_canonical_exactly_when_formatting_it_gives_it_back()
    {
        // The layout is chosen by the length and every byte checked at once: a fraction of 0 to 9 digits, each byte
        // replaced in turn by one of each kind the layout tells apart, and the text cut short anywhere. Each text also
        // ends, and then starts, at a page the process may not touch, so a load outside it stops the test run.
        var fractions = new[] { "", ".", ".5", ".50", ".05", ".123", ".1234567", ".1234560", ".0000001", ".12345678", ".123456789" };
        foreach (var fraction in fractions)
        {
            foreach (var date in new[] { "2024-02-29T23:59:59", "2023-12-31T00:00:00", "0001-01-01T00:00:00" })
            {
                var text = date + fraction + "Z";
                AssertInstant(text);
                for (var at = 0; at < text.Length; at++)
                {
                    AssertInstant(text[..at]);
                    foreach (var replacement in "0159:-.TZz x")
                    {
                        AssertInstant(text[..at] + replacement + text[(at + 1)..]);
                    }
                }
            }
        }

        static void AssertInstant(string text)
        {
            Assert.True(IsCanonical(text) == CanonicalInstant.Matches(Utf8(text)), text);
            if (GuardedMemory.IsSupported)
            {
                using (var guarded = GuardedMemory.EndingAtAGuard(Utf8(text)))
                {
                    Assert.True(IsCanonical(text) == CanonicalInstant.Matches(guarded.Bytes), text);
                }

                using (var guarded = GuardedMemory.StartingAtAGuard(Utf8(text)))
                {
                    Assert.True(IsCanonical(text) == CanonicalInstant.Matches(guarded.Bytes), text);
                }
            }
        }
    }

    [Fact]
    public void Every_real_day_is_a_canonical_date_and_no_other_is()
    {
        var days = 0;
        foreach (var year in new[] { 1, 1900, 2000, 2023, 2024, 9999 })
        {
            for (var month = 0; month <= 13; month++)
            {
                for (var day = 0; day <= 32; day++)
                {
                    var text = $"{year:0000}-{month:00}-{day:00}T12:00:00Z";
                    var canonical = CanonicalInstant.Matches(Utf8(text));
                    Assert.True(canonical == IsCanonical(text), text);
                    days += canonical ? 1 : 0;
                }
            }
        }

        // Four years of 365 days and two leap years (2000 and 2024), counted without the code under test.
        Assert.Equal((4 * 365) + (2 * 366), days);
    }

    [Fact]
    public void Every_real_time_of_day_is_a_canonical_time_and_no_other_is()
    {
        var times = 0;
        for (var hour = 0; hour <= 25; hour++)
        {
            for (var minute = 0; minute <= 61; minute++)
            {
                foreach (var second in new[] { 0, 1, 9, 10, 58, 59, 60, 61, 99 })
                {
                    var text = $"2024-03-10T{hour:00}:{minute:00}:{second:00}Z";
                    var canonical = CanonicalInstant.Matches(Utf8(text));
                    Assert.True(canonical == IsCanonical(text), text);
                    times += canonical ? 1 : 0;
                }
            }
        }

        Assert.Equal(24 * 60 * 6, times);
    }

    [Theory]
    [InlineData("},{", 2)]
    [InlineData("} , {", 4)]
    [InlineData("}\r\n,\t{", 5)]
    [InlineData("},\n\n{\"id\"", 4)]
    [InlineData("}]", -1)]
    [InlineData("}]}", -1)]
    [InlineData("}", -1)]
    [InlineData("} ", -1)]
    [InlineData("},", -1)]
    [InlineData("}, ", -1)]
    [InlineData("},[", -1)]
    [InlineData("},,{", -1)]
    [InlineData("}x,{", -1)]
    public void The_next_widget_starts_after_a_comma_and_whitespace(string buffer, int expected)
    {
        Assert.Equal(expected, PlainWidget.Following(Utf8(buffer), end: 1));
    }

    [Fact]
    public void A_guid_is_recognized_exactly_when_the_runtime_reads_one_from_its_digits()
    {
        // Every byte at every place of a Guid in either case, and one byte short or over: System.Text.Json reads a Guid
        // of 36 bytes with Utf8Parser's "D" format, which is the independent answer here.
        var checkedCount = 0;
        foreach (var guid in new[] { "6f9619ff-8b86-d011-b42d-00cf4fc964ff", "6F9619FF-8B86-D011-B42D-00CF4FC964FF" })
        {
            var digits = Utf8(guid);
            for (var at = 0; at < digits.Length; at++)
            {
                for (var value = 0; value <= byte.MaxValue; value++)
                {
                    var changed = (byte[])digits.Clone();
                    changed[at] = (byte)value;
                    Assert.True(IsGuid(changed) == PlainWidget.IsGuid(changed), $"{guid} with byte {value} at {at}");
                    checkedCount++;
                }
            }

            Assert.True(PlainWidget.IsGuid(digits), guid);
            Assert.False(PlainWidget.IsGuid(digits.AsSpan(0, digits.Length - 1)), guid + " short");
            Assert.False(PlainWidget.IsGuid([.. digits, (byte)'0']), guid + " long");
        }

        Assert.Equal(2 * 36 * 256, checkedCount);
    }

    private static bool IsGuid(byte[] digits) =>
        digits.Length == 36 && Utf8Parser.TryParse(digits, out Guid _, out var consumed, 'D') && consumed == digits.Length;

    // The independent answer: the text parses as a UTC instant and formatting that instant the canonical way (to 7
    // digits, trailing zeros and a bare point dropped) gives the text back.
    private static bool IsCanonical(string text) =>
        DateTime.TryParseExact(text, InstantFormat, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var instant) &&
        instant.ToString(InstantFormat, CultureInfo.InvariantCulture) == text;

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
