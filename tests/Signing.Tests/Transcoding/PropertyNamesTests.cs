using System.Buffers;
using System.Text;
using System.Text.Json;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Escaped property names are unescaped as System.Text.Json unescapes them, which is the answer these tests compare
/// with: the same UTF-8 for a valid name, and a refusal wherever its reader refuses a surrogate that is not half of a pair.
/// </summary>
public sealed class PropertyNamesTests
{
    [Theory]
    [InlineData("plain")]
    [InlineData("propert\\u0079\\u0032")]
    [InlineData("tab\\there, quote\\\" and \\\\ \\/ \\b\\f\\n\\r")]
    [InlineData("\\u00e9\\u20ac")]
    [InlineData("\\uD800\\uDC00")]
    [InlineData("\\uDBFF\\uDFFF")]
    [InlineData("a\\uD83D\\uDE00b")]
    [InlineData("\\uD800\\uDC00\\uD800\\uDC00")]
    [InlineData("\\uDC00")]
    [InlineData("\\uDFFF")]
    [InlineData("\\uDC00\\uDC00")]
    [InlineData("\\uD800")]
    [InlineData("\\uDBFF")]
    [InlineData("\\uD800x")]
    [InlineData("\\uD800\\n")]
    [InlineData("\\uD800\\uD800")]
    [InlineData("\\uD800\\uDBFF")]
    [InlineData("\\uD800\\uE000")]
    [InlineData("\\uD800\\u0041")]
    [InlineData("x\\uDBFF\\uDFFFy\\uD800")]
    public void A_name_is_unescaped_as_System_Text_Json_unescapes_it(string name)
    {
        var json = Encoding.UTF8.GetBytes("{\"" + name + "\":1}");
        var expected = Expected(json);

        // In one piece, and split in two at every byte so that the name also arrives as a sequence.
        Assert.Equal(expected, Unescaped(new ReadOnlySequence<byte>(json)));
        for (var at = 1; at < json.Length; at++)
        {
            var first = new BodySegment(json.AsMemory(0, at), 0);
            var last = first.Append(json.AsMemory(at));
            Assert.Equal(expected, Unescaped(new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length)));
        }
    }

    // System.Text.Json's reading of the name, as UTF-8; null where it refuses it.
    private static byte[]? Expected(byte[] json)
    {
        var reader = new Utf8JsonReader(json);
        reader.Read();
        reader.Read();
        try
        {
            return Encoding.UTF8.GetBytes(reader.GetString()!);
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }

    private static byte[]? Unescaped(ReadOnlySequence<byte> json)
    {
        var reader = new Utf8JsonReader(json);
        reader.Read();
        reader.Read();
        var destination = new byte[json.Length];
        var length = PropertyNames.Unescape(ref reader, destination);
        return length < 0 ? null : destination[..length];
    }
}
