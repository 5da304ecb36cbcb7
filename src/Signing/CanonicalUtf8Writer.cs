using System.Buffers;
using System.Globalization;
using System.Text.Unicode;
using Newtonsoft.Json;

namespace Signing;

/// <summary>
/// Writes an envelope's canonical JSON straight to UTF-8: byte for byte what <see cref="CanonicalJson"/> makes
/// Newtonsoft.Json write, without going through Newtonsoft. Newtonsoft's contract serializer boxes every Guid and
/// DateTime and makes a string of every Guid; this writer formats them in place, so a sign allocates nothing per widget.
/// </summary>
/// <remarks>
/// <para>
/// Only the envelope's fixed shape is written, so nothing is looked up by reflection: <c>{"widgets":[…]}</c>, each
/// widget's properties camelCased in declaration order, no whitespace. The rules below are Newtonsoft's as read in its
/// <c>JavaScriptUtils</c> and <c>DateTimeUtils</c>; the differential tests (tests/Signing.Tests/Strategies), which compare
/// this writer with Newtonsoft itself over every UTF-16 code unit and many generated envelopes, are the authority.
/// </para>
/// <list type="bullet">
/// <item>Strings escape the control characters (<c>\b \t \n \f \r</c> short, the others as <c>\u00XX</c> in lowercase hex),
/// <c>"</c>, <c>\</c>, U+0085, U+2028 and U+2029, and nothing else: non-ASCII, <c>'</c>, <c>&lt;</c>, <c>&gt;</c>,
/// <c>&amp;</c> and U+007F stay raw. A lone surrogate becomes the UTF-8 of U+FFFD, as the output encoder makes it.</item>
/// <item>Dates follow <c>DateTimeZoneHandling.Utc</c> (Local is converted with <see cref="DateTime.ToUniversalTime"/>,
/// Unspecified is taken as UTC) and are written <c>yyyy-MM-ddTHH:mm:ss</c>, then the fraction of the second with its
/// trailing zeros trimmed (no dot when it is zero), then <c>Z</c>.</item>
/// <item>Guids use the 36-character "D" format in lowercase. A null widget is written <c>null</c>; a null list or
/// string throws <see cref="JsonSerializationException"/>, because every property is required, as Newtonsoft throws.</item>
/// </list>
/// </remarks>
public static class CanonicalUtf8Writer
{
    // How many chars the common-case copy takes in one reservation; longer values continue on the general path.
    private const int MaxDirectChars = 256;

    private const int QuotedGuidBytes = 38;

    // A quoted round-trip date, "2020-01-01T00:00:00.1234567Z", and where its fraction lies within those bytes.
    private const int QuotedDateBytes = 30;
    private const int FractionStart = 21;
    private const int FractionEnd = 28;

    private static ReadOnlySpan<byte> LowerHex => "0123456789abcdef"u8;

    // Everything Newtonsoft escapes with StringEscapeHandling.Default and a double quote as the delimiter.
    private static readonly SearchValues<char> MustEscape = SearchValues.Create(
        "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f" +
        "\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f" +
        "\"\\\u0085\u2028\u2029");

    /// <summary>
    /// Writes <paramref name="envelope"/> to <paramref name="output"/> and returns how many bytes that was. The output
    /// sees chunks of a few KB at a time, so an output that hashes or sends them never holds the whole document.
    /// </summary>
    public static long Write(WidgetEnvelope envelope, IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(output);

        var widgets = envelope.Widgets ?? throw RequiredButNull("widgets");
        var cursor = new BufferCursor(output);
        cursor.Write("{\"widgets\":["u8);
        // By index: enumerating an IReadOnlyList through its interface would allocate an enumerator.
        for (var i = 0; i < widgets.Count; i++)
        {
            if (i > 0)
            {
                cursor.Write((byte)',');
            }

            WriteWidget(ref cursor, widgets[i]);
        }

        cursor.Write("]}"u8);
        cursor.Commit();
        return cursor.Total;
    }

    private static void WriteWidget(ref BufferCursor cursor, Widget? widget)
    {
        if (widget is null)
        {
            cursor.Write("null"u8);
            return;
        }

        cursor.Write("{\"id\":"u8);
        WriteGuid(ref cursor, widget.Id);
        WriteProperty(ref cursor, ",\"property0\":\""u8, widget.Property0, "property0");
        WriteProperty(ref cursor, ",\"property1\":\""u8, widget.Property1, "property1");
        WriteProperty(ref cursor, ",\"property2\":\""u8, widget.Property2, "property2");
        WriteProperty(ref cursor, ",\"property3\":\""u8, widget.Property3, "property3");
        WriteProperty(ref cursor, ",\"property4\":\""u8, widget.Property4, "property4");
        WriteProperty(ref cursor, ",\"property5\":\""u8, widget.Property5, "property5");
        WriteProperty(ref cursor, ",\"property6\":\""u8, widget.Property6, "property6");
        WriteProperty(ref cursor, ",\"property7\":\""u8, widget.Property7, "property7");
        WriteProperty(ref cursor, ",\"property8\":\""u8, widget.Property8, "property8");
        WriteProperty(ref cursor, ",\"property9\":\""u8, widget.Property9, "property9");
        cursor.Write(",\"createdUtc\":"u8);
        WriteDate(ref cursor, widget.CreatedUtc);
        cursor.Write((byte)'}');
    }

    private static void WriteGuid(ref BufferCursor cursor, Guid value)
    {
        var span = cursor.Reserve(QuotedGuidBytes);
        span[0] = (byte)'"';
        value.TryFormat(span[1..], out var written, "D");
        span[written + 1] = (byte)'"';
        cursor.Advance(written + 2);
    }

    // The prefix is the property's comma, name, colon and opening quote, so that the common value (short printable
    // ASCII with nothing to escape) costs one reservation and one pass that checks and copies each char as a byte.
    private static void WriteProperty(ref BufferCursor cursor, ReadOnlySpan<byte> prefix, string? value, string name)
    {
        if (value is null)
        {
            throw RequiredButNull(name);
        }

        var direct = Math.Min(value.Length, MaxDirectChars);
        var span = cursor.Reserve(prefix.Length + direct + 1);
        prefix.CopyTo(span);
        var text = span.Slice(prefix.Length, direct);
        var copied = 0;
        while (copied < direct && IsPlainAscii(value[copied]))
        {
            text[copied] = (byte)value[copied];
            copied++;
        }

        if (copied == value.Length)
        {
            span[prefix.Length + copied] = (byte)'"';
            cursor.Advance(prefix.Length + copied + 1);
            return;
        }

        cursor.Advance(prefix.Length + copied);
        WriteEscapedText(ref cursor, value.AsSpan(copied));
        cursor.Write((byte)'"');
    }

    // U+0020 to U+007F except the quote and the backslash: one byte each, written as they are.
    private static bool IsPlainAscii(char c) => (uint)(c - 0x20) <= 0x7F - 0x20 && c != '"' && c != '\\';

    // The general case: runs that need no escaping are transcoded in bulk, and each character that does is escaped.
    private static void WriteEscapedText(ref BufferCursor cursor, ReadOnlySpan<char> text)
    {
        while (true)
        {
            var next = text.IndexOfAny(MustEscape);
            if (next < 0)
            {
                WriteRaw(ref cursor, text);
                return;
            }

            WriteRaw(ref cursor, text[..next]);
            WriteEscaped(ref cursor, text[next]);
            text = text[(next + 1)..];
        }
    }

    // Transcodes text that needs no escaping. A run always ends where the string ends or before an escaped (ASCII)
    // character, so a high surrogate at its end has no partner in the output either, and replacing it with U+FFFD as
    // a final block is what the output encoder of the Newtonsoft path does.
    private static void WriteRaw(ref BufferCursor cursor, ReadOnlySpan<char> run)
    {
        while (!run.IsEmpty)
        {
            // Four bytes always hold the next scalar (a pair is two chars), so every pass makes progress.
            var span = cursor.Reserve(Math.Min(run.Length * 3, 4));
            Utf8.FromUtf16(run, span, out var read, out var written, replaceInvalidSequences: true, isFinalBlock: true);
            cursor.Advance(written);
            run = run[read..];
        }
    }

    private static void WriteEscaped(ref BufferCursor cursor, char c)
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
        span[2] = LowerHex[c >> 12];
        span[3] = LowerHex[(c >> 8) & 0xF];
        span[4] = LowerHex[(c >> 4) & 0xF];
        span[5] = LowerHex[c & 0xF];
        cursor.Advance(6);
    }

    private static void WriteDate(ref BufferCursor cursor, DateTime value)
    {
        // DateTimeZoneHandling.Utc: a Local value is converted, an Unspecified one is taken as UTC already.
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

    // Every property is required (see Widget), and Newtonsoft enforces that on writing too: fail as it fails.
    private static JsonSerializationException RequiredButNull(string name) =>
        new($"Cannot write a null value for property '{name}'. Property requires a value.");
}
