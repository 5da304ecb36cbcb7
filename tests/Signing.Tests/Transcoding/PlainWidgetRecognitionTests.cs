using System.Buffers.Text;
using System.Text;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Two things <see cref="PlainWidget"/> recognizes, held one by one: a Guid, and the widget that follows a copied one
/// (the others, a widget in canonical layout and a canonical instant, are <see cref="CanonicalRunTests"/>' and
/// <see cref="CanonicalInstantTests"/>').
/// </summary>
public sealed class PlainWidgetRecognitionTests
{
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

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
