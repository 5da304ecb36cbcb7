using System.Buffers;
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
        cursor.Write(CanonicalValues.EnvelopeStart);
        // By index: enumerating an IReadOnlyList through its interface would allocate an enumerator.
        for (var i = 0; i < widgets.Count; i++)
        {
            if (i > 0)
            {
                cursor.Write((byte)',');
            }

            WriteWidget(ref cursor, widgets[i]);
        }

        cursor.Write(CanonicalValues.EnvelopeEnd);
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

        cursor.Write(WidgetMembers.Prefix(WidgetMembers.Id));
        CanonicalValues.WriteGuid(ref cursor, widget.Id);
        WriteProperty(ref cursor, 1, widget.Property0);
        WriteProperty(ref cursor, 2, widget.Property1);
        WriteProperty(ref cursor, 3, widget.Property2);
        WriteProperty(ref cursor, 4, widget.Property3);
        WriteProperty(ref cursor, 5, widget.Property4);
        WriteProperty(ref cursor, 6, widget.Property5);
        WriteProperty(ref cursor, 7, widget.Property6);
        WriteProperty(ref cursor, 8, widget.Property7);
        WriteProperty(ref cursor, 9, widget.Property8);
        WriteProperty(ref cursor, 10, widget.Property9);
        cursor.Write(WidgetMembers.Prefix(WidgetMembers.CreatedUtc));
        CanonicalValues.WriteDate(ref cursor, widget.CreatedUtc);
        cursor.Write((byte)'}');
    }

    // The prefix is the property's comma, name, colon and opening quote, so that the common value (short printable
    // ASCII with nothing to escape) costs one reservation and one pass that checks and copies each char as a byte.
    private static void WriteProperty(ref BufferCursor cursor, int member, string? value)
    {
        if (value is null)
        {
            throw RequiredButNull(WidgetMembers.Name(member));
        }

        var prefix = WidgetMembers.Prefix(member);
        var direct = Math.Min(value.Length, MaxDirectChars);
        var span = cursor.Reserve(prefix.Length + direct + 1);
        prefix.CopyTo(span);
        var text = span.Slice(prefix.Length, direct);
        var copied = 0;

        while (
            // Stryker disable once Equality : with no direct copy, the general case below writes the same bytes, slower.
            copied < direct &&
            IsPlainAscii(value[copied]))
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
    // Stryker disable once Equality : DEL left to the general case is written as it is there too.
    private static bool IsPlainAscii(char c) => (uint)(c - 0x20) <= 0x7F - 0x20 && c != '"' && c != '\\';

    // The general case: runs that need no escaping are transcoded in bulk, and each character that does is escaped.
    private static void WriteEscapedText(ref BufferCursor cursor, ReadOnlySpan<char> text)
    {
        while (true)
        {
            var next = text.IndexOfAny(CanonicalValues.MustEscape);
            if (next < 0)
            {
                WriteRaw(ref cursor, text);
                return;
            }

            WriteRaw(ref cursor, text[..next]);
            CanonicalValues.WriteEscaped(ref cursor, text[next]);
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

    // Every property is required (see Widget), and Newtonsoft enforces that on writing too: fail as it fails.
    private static JsonSerializationException RequiredButNull(string name) =>
        new($"Cannot write a null value for property '{name}'. Property requires a value.");
}
