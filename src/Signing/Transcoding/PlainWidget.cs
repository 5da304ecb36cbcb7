using System.Buffers;
using System.Text;
using System.Text.Json;

namespace Signing.Transcoding;

/// <summary>
/// Recognizes a plain widget, one that needs no tokenizer: its twelve members each given once, in any order, every
/// value a plain string (printable ASCII, no escapes), with any JSON whitespace between the tokens. Its canonical bytes
/// are its own, rearranged: the transcoder writes them from the widget's bytes instead of reading it token by token, and
/// reads every other widget the slow way.
/// </summary>
/// <remarks>
/// <para>
/// A plain widget is a subset of what the tokenizer and the object path accept without complaint: one that matches is
/// one they sign, and the same bytes come out (the differential tests hold the transcoder to that with bodies damaged
/// byte by byte). Anything else, however close (an escape, a non-ASCII character, a member missing, doubled or
/// unknown), is left to the tokenizer, which finds any fault and reports it as the object path does.
/// </para>
/// <para>
/// A widget written exactly as the canonical document writes it (no whitespace, members in order) is the common case:
/// <see cref="CanonicalRun"/> finds it and the ones like it that follow, which are copied in one piece.
/// </para>
/// </remarks>
internal static class PlainWidget
{
    // What a string may hold and come out unchanged: printable ASCII and DEL, less the quote and backslash, which a
    // plain string cannot hold. Every other byte is escaped, an escape, a control character or part of a longer
    // character, which the slow path handles.
    private static readonly SearchValues<byte> PlainText = SearchValues.Create(
        [.. Enumerable.Range(0x20, 0x60).Where(b => b is not '"' and not '\\').Select(b => (byte)b)]);

    // What a Guid's digits in "D" format may hold, in either case.
    private static readonly SearchValues<byte> GuidDigits = SearchValues.Create("0123456789abcdefABCDEF-"u8);

    // JSON's whitespace, the only bytes the tokenizer skips between tokens (comments are refused).
    private static readonly SearchValues<byte> Whitespace = SearchValues.Create(" \t\r\n"u8);

    /// <summary>
    /// Writes the canonical bytes of the plain widget <paramref name="buffer"/> starts with, and of the widgets in
    /// canonical layout that follow it, if it is one of them; writes nothing if it is not plain or not all there.
    /// </summary>
    /// <param name="buffer">The bytes from the widget's opening brace to wherever the buffer ends.</param>
    /// <param name="comma">Whether to write a comma before the widget.</param>
    /// <param name="most">How many widgets to write at most.</param>
    /// <param name="cursor">Where the canonical bytes go.</param>
    /// <param name="widgets">How many widgets were written.</param>
    /// <param name="canonical">
    /// Whether the widgets were in canonical layout (see <see cref="CanonicalRun"/>), whose bytes hold no whitespace and
    /// so no line feed.
    /// </param>
    /// <returns>The bytes the widgets take, the last one's closing brace included; -1 when none was written.</returns>
    public static int Copy(scoped ReadOnlySpan<byte> buffer, bool comma, int most, ref BufferCursor cursor, out int widgets, out bool canonical)
    {
        var run = CanonicalRun.Measure(buffer, most, afterCut: false, out widgets, out var upperCaseGuid);
        canonical = run > 0;
        if (!canonical)
        {
            widgets = 1;
            return CopyAnyLayout(buffer, comma, ref cursor);
        }

        if (comma)
        {
            cursor.Write((byte)',');
        }

        // A run may be longer than the output's span, and a Guid's digits are lowered only as they are copied.
        // Stryker disable Equality : a Guid starts 7 bytes into its widget, never at 0.
        var lowered = upperCaseGuid < 0 ? run : upperCaseGuid;
        cursor.WriteAll(buffer[..lowered]);
        if (upperCaseGuid >= 0)
        {
            // Stryker restore Equality
            Ascii.ToLower(buffer.Slice(upperCaseGuid, CanonicalRun.GuidLength), cursor.Reserve(CanonicalRun.GuidLength), out _);
            cursor.Advance(CanonicalRun.GuidLength);
            cursor.WriteAll(buffer[(upperCaseGuid + CanonicalRun.GuidLength)..run]);
        }

        return run;
    }

    /// <summary>
    /// Where the widget after the one that ends just before <paramref name="end"/> starts, if a comma and an opening
    /// brace follow there with nothing but whitespace around the comma; -1 otherwise.
    /// </summary>
    public static int Following(ReadOnlySpan<byte> buffer, int end)
    {
        var comma = SkipWhitespace(buffer, end);
        if (comma >= buffer.Length || buffer[comma] != ',')
        {
            return -1;
        }

        var brace = SkipWhitespace(buffer, comma + 1);
        return brace < buffer.Length && buffer[brace] == '{' ? brace : -1;
    }

    // Writes a plain widget in any layout, member by member in canonical order.
    private static int CopyAnyLayout(scoped ReadOnlySpan<byte> widget, bool comma, ref BufferCursor cursor)
    {
        // Where each member's value is, its quotes included.
        Span<Range> values = stackalloc Range[WidgetMembers.Count];
        var seen = 0;
        var at = 1;
        for (var count = 1; count <= WidgetMembers.Count; count++)
        {
            var nameStart = SkipWhitespace(widget, at);
            var nameEnd = PlainString(widget, nameStart);

            // Stryker disable once Equality : PlainString never returns 0.
            var member = nameEnd < 0 ? -1 : WidgetMembers.Find(widget[(nameStart + 1)..(nameEnd - 1)]);
            if (member < 0 || (seen & (1 << member)) != 0)
            {
                return -1;
            }

            // Stryker disable once Assignment : the member's bit is clear (just checked), so "xor" sets it as "or" does.
            seen |= 1 << member;
            var colon = SkipWhitespace(widget, nameEnd);
            var valueStart = colon < widget.Length && widget[colon] == ':' ? SkipWhitespace(widget, colon + 1) : widget.Length;
            var valueEnd = PlainString(widget, valueStart);

            // Stryker disable once Equality : PlainString never returns 0.
            if (valueEnd < 0)
            {
                return -1;
            }

            values[member] = valueStart..valueEnd;
            var separator = SkipWhitespace(widget, valueEnd);
            if (separator >= widget.Length || widget[separator] != (count < WidgetMembers.Count ? ',' : '}'))
            {
                return -1;
            }

            at = separator + 1;
        }

        var quotedId = widget[values[WidgetMembers.Id]];
        if (quotedId.Length != CanonicalRun.GuidLength + 2 || !IsGuid(quotedId[1..^1]) ||
            !ReadInstant(widget[values[WidgetMembers.CreatedUtc]], out var instant, out var instantIsCanonical))
        {
            return -1;
        }

        if (comma)
        {
            cursor.Write((byte)',');
        }

        cursor.Write(WidgetMembers.Prefix(WidgetMembers.Id));
        Ascii.ToLower(quotedId, cursor.Reserve(quotedId.Length), out _);
        cursor.Advance(quotedId.Length);
        for (var member = WidgetMembers.Id + 1; member < WidgetMembers.CreatedUtc; member++)
        {
            // The prefix ends with the value's opening quote, and the value is copied with its closing quote.
            cursor.Write(WidgetMembers.Prefix(member));
            cursor.WriteAll(widget[values[member]][1..]);
        }

        cursor.Write(WidgetMembers.Prefix(WidgetMembers.CreatedUtc));
        if (instantIsCanonical)
        {
            cursor.Write(widget[values[WidgetMembers.CreatedUtc]]);
        }
        else
        {
            CanonicalValues.WriteDate(ref cursor, instant);
        }

        cursor.Write((byte)'}');
        return at;
    }

    // The position after the plain string that starts at start (with its opening quote), or -1 if there is none.
    private static int PlainString(ReadOnlySpan<byte> widget, int start)
    {
        if (start >= widget.Length || widget[start] != '"')
        {
            return -1;
        }

        var length = widget[(start + 1)..].IndexOfAnyExcept(PlainText);
        return length >= 0 && widget[start + 1 + length] == '"' ? start + length + 2 : -1;
    }

    private static int SkipWhitespace(ReadOnlySpan<byte> buffer, int at)
    {
        // Most tokens have none before them, and every byte above the space is not whitespace.
        // Stryker disable once Block : the search below gives the same answer, only slower.
        if (at >= buffer.Length || buffer[at] > ' ')
        {
            return at;
        }

        var skipped = buffer[at..].IndexOfAnyExcept(Whitespace);

        // Stryker disable once Conditional,Equality : at the end of the buffer at - 1 (the byte before the whitespace, a
        // '}', ',', ':' or '"') is refused by every caller as the end is; a skip of 0 (a control byte) is refused too.
        return skipped < 0 ? buffer.Length : at + skipped;
    }

    // Whether digits are a Guid as the tokenizer reads one ("D" format, either case): 36 bytes, hex digits in groups of
    // 8, 4, 4, 4 and 12. Its canonical text is the same bytes in lower case.
    internal static bool IsGuid(ReadOnlySpan<byte> digits) =>
        digits.Length == CanonicalRun.GuidLength && digits[8] == '-' && digits[13] == '-' && digits[18] == '-' && digits[23] == '-' &&
        digits.Count((byte)'-') == 4 && !digits.ContainsAnyExcept(GuidDigits);

    // The instant in quoted, by the object path's rules; whether its text is already as the canonical document has it.
    private static bool ReadInstant(ReadOnlySpan<byte> quoted, out DateTime instant, out bool isCanonical)
    {
        instant = default;
        isCanonical = CanonicalInstant.Matches(quoted[1..^1]);
        if (isCanonical)
        {
            return true;
        }

        // Another form, read as a token of its own, quotes included.
        var reader = new Utf8JsonReader(quoted, EnvelopeParser.ReaderOptions);
        reader.Read();
        return UtcInstantConverter.TryRead(ref reader, out instant);
    }
}
