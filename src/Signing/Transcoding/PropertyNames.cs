using System.Buffers;
using System.Buffers.Text;
using System.Text;
using System.Text.Json;

namespace Signing.Transcoding;

/// <summary>
/// Property names as the serializer sees them: unescaped, with an escaped lone surrogate refused but invalid UTF-8 kept
/// as it is (the serializer compares names as bytes, so such a name is merely unknown, and quotes it with replacement
/// characters). <see cref="Utf8JsonReader.CopyString(Span{byte})"/> would refuse the invalid UTF-8 too, which the
/// serializer does not.
/// </summary>
internal static class PropertyNames
{
    /// <summary>
    /// Unescapes the current property name into <paramref name="destination"/> (at least as long as the name as it
    /// arrived) and returns its length, or -1 when it holds an escaped surrogate that is not half of a pair.
    /// </summary>
    public static int Unescape(ref Utf8JsonReader reader, scoped Span<byte> destination)
    {
        scoped ReadOnlySpan<byte> source;
        if (reader.HasValueSequence)
        {
            // Moved to the end of the destination first: unescaping only shrinks, so it never overtakes what it reads.
            var length = (int)reader.ValueSequence.Length;
            reader.ValueSequence.CopyTo(destination[^length..]);
            source = destination[^length..];
        }
        else
        {
            source = reader.ValueSpan;
        }

        // Stryker disable once Conditional : unescaping text without escapes copies it, only slower.
        return reader.ValueIsEscaped ? UnescapeText(source, destination) : Copy(source, destination);
    }

    /// <summary>The current property name as the serializer quotes it in messages; only for the failure path.</summary>
    public static string Decode(ref Utf8JsonReader reader)
    {
        var bytes = new byte[reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length];
        var length = Unescape(ref reader, bytes);
        return Encoding.UTF8.GetString(bytes, 0, Math.Max(length, 0));
    }

    private static int Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        source.CopyTo(destination);
        return source.Length;
    }

    // The reader has checked the escapes' syntax already: a backslash is followed by one of "\/bfnrtu, and a u by
    // four hex digits. What is left to check is the pairing of surrogates, as System.Text.Json's unescaping checks it:
    // a high surrogate must be followed at once by an escaped low one, and a low one must not come first.
    private static int UnescapeText(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        var written = 0;
        var i = 0;

        while (
            // Stryker disable once Equality : at the end, "<=" takes one more turn that copies nothing and stops.
            i < source.Length)
        {
            var run = source[i..].IndexOf((byte)'\\');
            if (run < 0)
            {
                run = source.Length - i;
            }

            source.Slice(i, run).CopyTo(destination[written..]);
            written += run;
            i += run;
            if (i == source.Length)
            {
                break;
            }

            var escape = source[i + 1];
            if (escape != (byte)'u')
            {
                destination[written++] = escape switch
                {
                    (byte)'b' => (byte)'\b',
                    (byte)'f' => (byte)'\f',
                    (byte)'n' => (byte)'\n',
                    (byte)'r' => (byte)'\r',
                    (byte)'t' => (byte)'\t',
                    _ => escape,
                };
                i += 2;
                continue;
            }

            var scalar = Hex(source.Slice(i + 2, 4));
            i += 6;
            if (scalar is >= 0xD800 and <= 0xDFFF)
            {
                if (scalar >= 0xDC00 || source.Length < i + 6 || source[i] != (byte)'\\' || source[i + 1] != (byte)'u')
                {
                    return -1;
                }

                var low = Hex(source.Slice(i + 2, 4));
                if (low is < 0xDC00 or > 0xDFFF)
                {
                    return -1;
                }

                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            }

            written += new Rune(scalar).EncodeToUtf8(destination[written..]);
        }

        return written;
    }

    // Stryker disable once String : unreachable, the reader has checked the digits.
    private static int Hex(ReadOnlySpan<byte> digits) =>
        Utf8Parser.TryParse(digits, out int value, out _, 'x') ? value : throw new FormatException("The reader passed an escape that is not four hex digits.");
}
