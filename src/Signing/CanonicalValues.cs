using System.Buffers;
using System.Globalization;

namespace Signing;

/// <summary>
/// Newtonsoft's rules for the values of the canonical document, written as UTF-8: how a Guid, an instant and a
/// character that must be escaped look. <see cref="CanonicalUtf8Writer"/> applies them to an envelope's strings
/// (UTF-16) and the transcoder to the wire's (UTF-8), so the two cannot drift apart.
/// </summary>
/// <remarks>
/// The rules are Newtonsoft's as read in its <c>JavaScriptUtils</c> and <c>DateTimeUtils</c>; the differential tests
/// against Newtonsoft itself are the authority.
/// </remarks>
internal static class CanonicalValues
{
    private const int QuotedGuidBytes = 38;

    // A quoted round-trip date, "2020-01-01T00:00:00.1234567Z", and where its fraction lies within those bytes.
    private const int QuotedDateBytes = 30;
    private const int FractionStart = 21;
    private const int FractionEnd = 28;

    private static ReadOnlySpan<byte> LowerHex => "0123456789abcdef"u8;

    /// <summary>What the canonical document starts with, up to its first widget.</summary>
    public static ReadOnlySpan<byte> EnvelopeStart => "{\"widgets\":["u8;

    /// <summary>What the canonical document ends with, after its last widget.</summary>
    public static ReadOnlySpan<byte> EnvelopeEnd => "]}"u8;

    /// <summary>
    /// Everything Newtonsoft escapes with <c>StringEscapeHandling.Default</c> and a double quote as the delimiter: the
    /// control characters, the quote, the backslash, U+0085, U+2028 and U+2029. Nothing else, not even non-ASCII.
    /// </summary>
    public static SearchValues<char> MustEscape { get; } = SearchValues.Create(
        "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f" +
        "\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f" +
        "\"\\\u0085\u2028\u2029");

    // The bytes that begin one of MustEscape's characters in UTF-8: the single bytes themselves, and the lead bytes of
    // U+0085 (C2 85) and of U+2028 and U+2029 (E2 80 A8, E2 80 A9), which other characters share.
    private static readonly SearchValues<byte> MayEscape = SearchValues.Create(
        [.. "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f"u8,
         .. "\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"u8,
         (byte)'"', (byte)'\\', 0xC2, 0xE2]);

    /// <summary>Writes <paramref name="value"/> quoted, in the 36-character "D" format, lowercase.</summary>
    public static void WriteGuid(ref BufferCursor cursor, Guid value)
    {
        var span = cursor.Reserve(QuotedGuidBytes);
        span[0] = (byte)'"';
        value.TryFormat(span[1..], out var written, "D");
        span[written + 1] = (byte)'"';
        cursor.Advance(written + 2);
    }

    /// <summary>
    /// Writes <paramref name="value"/> quoted as Newtonsoft does with <c>DateTimeZoneHandling.Utc</c>: a Local value is
    /// converted, an Unspecified one taken as UTC already, and the fraction of the second loses its trailing zeros.
    /// </summary>
    public static void WriteDate(ref BufferCursor cursor, DateTime value)
    {
        value = value.Kind switch
        {
            DateTimeKind.Local => value.ToUniversalTime(),
            DateTimeKind.Unspecified => DateTime.SpecifyKind(value, DateTimeKind.Utc),
            _ => value,
        };

        // The round-trip format of a UTC DateTime is always "yyyy-MM-ddTHH:mm:ss.fffffffZ": seven fraction digits, at
        // 21 to 27 once the opening quote is counted. Newtonsoft writes the same with the fraction's trailing zeros
        // trimmed, and the dot too when nothing is left.
        var span = cursor.Reserve(QuotedDateBytes);
        span[0] = (byte)'"';
        value.TryFormat(span[1..], out _, "O", CultureInfo.InvariantCulture);
        var end = FractionEnd;
        while (end > FractionStart && span[end - 1] == (byte)'0')
        {
            end--;
        }

        if (end == FractionStart)
        {
            end--;
        }

        span[end] = (byte)'Z';
        span[end + 1] = (byte)'"';
        cursor.Advance(end + 2);
    }

    /// <summary>Writes one character of <see cref="MustEscape"/> escaped: short forms where JSON has them, else <c>\u00XX</c>.</summary>
    public static void WriteEscaped(ref BufferCursor cursor, char c)
    {
        var span = cursor.Reserve(6);
        span[0] = (byte)'\\';
        var shortForm = c switch
        {
            '\b' => 'b',
            '\t' => 't',
            '\n' => 'n',
            '\f' => 'f',
            '\r' => 'r',
            '"' => '"',
            '\\' => '\\',
            _ => '\0',
        };
        if (shortForm != '\0')
        {
            span[1] = (byte)shortForm;
            cursor.Advance(2);
            return;
        }

        span[1] = (byte)'u';

        // A char is never negative, so Stryker's ">>>" mutants here shift as ">>" does, and every character escaped here
        // (a control character, U+0085, U+2028, U+2029) has 0 for its second digit, which its "(c << 8) & 0xF" also gives:
        // equivalent mutants, left unmarked because a mark would also hide their killable siblings ("<<", "|").
        span[2] = LowerHex[c >> 12];
        span[3] = LowerHex[(c >> 8) & 0xF];
        span[4] = LowerHex[(c >> 4) & 0xF];
        span[5] = LowerHex[c & 0xF];
        cursor.Advance(6);
    }

    /// <summary>
    /// Writes the text <paramref name="utf8"/>, which must be valid UTF-8, with the characters of
    /// <see cref="MustEscape"/> escaped and every other byte as it is: the bytes of a canonical string value without
    /// its quotes. Runs with nothing to escape are copied whole.
    /// </summary>
    public static void WriteUtf8Text(ref BufferCursor cursor, scoped ReadOnlySpan<byte> utf8)
    {
        while (true)
        {
            var next = utf8.IndexOfAny(MayEscape);
            if (next < 0)
            {
                cursor.WriteAll(utf8);
                return;
            }

            cursor.WriteAll(utf8[..next]);
            var rest = utf8[next..];
            var (escaped, length) = rest switch
            {
                // Stryker disable once Equality : the byte is one of MayEscape's, never 0x80.
                [< 0x80, ..] => ((char)rest[0], 1),
                [0xC2, 0x85, ..] => ('\u0085', 2),
                [0xE2, 0x80, 0xA8, ..] => ('\u2028', 3),
                [0xE2, 0x80, 0xA9, ..] => ('\u2029', 3),
                _ => ('\0', 0),
            };
            if (length == 0)
            {
                // Another character that starts with C2 or E2: its lead byte as it is, and the rest with the next run.
                cursor.Write(rest[0]);
                length = 1;
            }
            else
            {
                WriteEscaped(ref cursor, escaped);
            }

            utf8 = utf8[(next + length)..];
        }
    }
}
