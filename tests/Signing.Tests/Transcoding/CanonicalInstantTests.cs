using System.Globalization;
using System.Text;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// What <see cref="CanonicalInstant"/> takes as an instant already in canonical form, against the runtime's own
/// formatting of the parsed value. A missed instant costs speed, not bytes (the slower branch writes the same), so only
/// these tests can see one.
/// </summary>
public sealed class CanonicalInstantTests
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
    [InlineData("202400301001003405600")]
    [InlineData("2024-03-10T10:34:56.1")]
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

    private static bool IsCanonical(string text) =>
        DateTime.TryParseExact(text, InstantFormat, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var instant) &&
        instant.ToString(InstantFormat, CultureInfo.InvariantCulture) == text;

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
