using System.Buffers;
using System.Buffers.Text;
using System.Text.Json;

namespace Signing.Transcoding;

/// <summary>
/// Recognizes a widget that arrived as the canonical document writes one: every member once, in canonical order, no
/// whitespace, no escapes, every string plain printable ASCII. Such a widget needs no tokenizer: its bytes are its
/// canonical bytes, but for the Guid's case and the instant's form, so the transcoder copies it whole instead of reading
/// it token by token, and reads every other widget the slow way.
/// </summary>
/// <remarks>
/// The shape is a subset of what the tokenizer and the object path accept without complaint: a widget that matches is
/// one they sign, and the same bytes come out (the differential tests hold the transcoder to that with bodies damaged
/// byte by byte). Anything else, however close, is left to the tokenizer, which finds any fault and reports it as the
/// object path does.
/// </remarks>
internal static class CanonicalWidgetShape
{
    // The bytes between a widget's opening brace and its Guid's first digit, and the Guid's length.
    private const int GuidStart = 7;
    private const int GuidLength = 36;

    // The lengths of a canonical instant, "2024-03-10T10:34:56Z", without a fraction and with one of 7 digits.
    private const int WholeSecondsInstant = 20;
    private const int LongestInstant = 28;

    // What a string may hold and come out unchanged: printable ASCII and DEL, less the quote and backslash, which a
    // plain string cannot hold. Every other byte is escaped, an escape, a control character or part of a longer
    // character, which the slow path handles.
    private static readonly SearchValues<byte> PlainText = SearchValues.Create(
        [.. Enumerable.Range(0x20, 0x60).Where(b => b is not '"' and not '\\').Select(b => (byte)b)]);

    /// <summary>
    /// Writes the canonical bytes of the widget <paramref name="widget"/> starts with, if it is in canonical shape and
    /// all there; writes nothing otherwise.
    /// </summary>
    /// <param name="widget">The bytes from the widget's opening brace to wherever the buffer ends.</param>
    /// <param name="comma">Whether to write a comma before the widget.</param>
    /// <param name="cursor">Where the canonical bytes go.</param>
    /// <returns>The widget's length, closing brace included; -1 when it does not match or is not all in the buffer.</returns>
    public static int Copy(ReadOnlySpan<byte> widget, bool comma, ref BufferCursor cursor)
    {
        var length = Match(widget, out var id, out var instantStart, out var instantEnd);
        if (length < 0)
        {
            return -1;
        }

        var instant = default(DateTime);
        var instantIsCanonical = IsCanonicalInstant(widget[(instantStart + 1)..(instantEnd - 1)]);
        if (!instantIsCanonical)
        {
            // Another form of instant, read as a token of its own (quotes included) by the object path's rules.
            var reader = new Utf8JsonReader(widget[instantStart..instantEnd], EnvelopeParser.ReaderOptions);
            reader.Read();
            if (!UtcInstantConverter.TryRead(ref reader, out instant))
            {
                return -1;
            }
        }

        // The bytes are canonical already but for the case of the Guid's digits, and the instant when not canonical.
        var prefix = comma ? 1 : 0;
        var copied = prefix + (instantIsCanonical ? length : instantStart);
        var copy = cursor.Reserve(copied);
        if (comma)
        {
            copy[0] = (byte)',';
        }

        widget[..(copied - prefix)].CopyTo(copy[prefix..]);
        id.TryFormat(copy[(prefix + GuidStart)..], out _, "D");
        cursor.Advance(copied);
        if (!instantIsCanonical)
        {
            CanonicalValues.WriteDate(ref cursor, instant);
            cursor.Write((byte)'}');
        }

        return length;
    }

    // Matches the widget against the canonical shape and returns its length, or -1.
    private static int Match(ReadOnlySpan<byte> widget, out Guid id, out int instantStart, out int instantEnd)
    {
        id = default;
        instantStart = instantEnd = 0;

        // {"id":"<guid>"
        if (!widget.StartsWith(WidgetMembers.Prefix(WidgetMembers.Id)) || widget.Length < GuidStart + GuidLength + 1 ||
            widget[GuidStart - 1] != '"' || widget[GuidStart + GuidLength] != '"' ||
            !Utf8Parser.TryParse(widget.Slice(GuidStart, GuidLength), out id, out var parsed, 'D') || parsed != GuidLength)
        {
            return -1;
        }

        // ,"propertyN":"<text>" for each string member; each prefix ends with the value's opening quote.
        var at = GuidStart + GuidLength + 1;
        for (var member = WidgetMembers.Id + 1; member < WidgetMembers.CreatedUtc; member++)
        {
            at = Text(widget, at, WidgetMembers.Prefix(member));
            if (at < 0)
            {
                return -1;
            }
        }

        // ,"createdUtc":"<instant>"}
        var prefix = WidgetMembers.Prefix(WidgetMembers.CreatedUtc);
        if (!widget[at..].StartsWith(prefix))
        {
            return -1;
        }

        instantStart = at + prefix.Length;
        instantEnd = Text(widget, instantStart, "\""u8);
        return instantEnd > 0 && instantEnd < widget.Length && widget[instantEnd] == '}' ? instantEnd + 1 : -1;
    }

    // Whether text is an instant as CanonicalValues.WriteDate writes it: UTC, to the second or with a fraction of 1 to 7
    // digits that does not end with 0, and a real date and time (which the tokenizer checks for any other form).
    private static bool IsCanonicalInstant(ReadOnlySpan<byte> text)
    {
        if (text.Length is < WholeSecondsInstant or > LongestInstant || text.Length == WholeSecondsInstant + 1 ||
            text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':' || text[^1] != 'Z')
        {
            return false;
        }

        if (text.Length > WholeSecondsInstant &&
            (text[19] != '.' || text[20..^1].ContainsAnyExceptInRange((byte)'0', (byte)'9') || text[^2] == '0'))
        {
            return false;
        }

        var year = Number(text[..4]);
        var month = Number(text[5..7]);
        var day = Number(text[8..10]);
        return year >= 1 && month is >= 1 and <= 12 && day >= 1 && day <= DateTime.DaysInMonth(year, month) &&
            Number(text[11..13]) is >= 0 and <= 23 && Number(text[14..16]) is >= 0 and <= 59 &&
            Number(text[17..19]) is >= 0 and <= 59;
    }

    // The value of a run of ASCII digits, or -1 if any byte is not one.
    private static int Number(ReadOnlySpan<byte> digits)
    {
        var value = 0;
        foreach (var digit in digits)
        {
            if (!char.IsAsciiDigit((char)digit))
            {
                return -1;
            }

            value = (value * 10) + digit - '0';
        }

        return value;
    }

    // Matches prefix at the position given, then plain text and a closing quote; returns the position after the quote.
    private static int Text(ReadOnlySpan<byte> widget, int at, ReadOnlySpan<byte> prefix)
    {
        if (!widget[at..].StartsWith(prefix))
        {
            return -1;
        }

        at += prefix.Length;
        var length = widget[at..].IndexOfAnyExcept(PlainText);
        return length >= 0 && widget[at + length] == '"' ? at + length + 1 : -1;
    }
}
