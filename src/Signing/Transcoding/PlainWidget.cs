using System.Buffers;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
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
/// A widget written exactly as the canonical document writes it (no whitespace, members in order) is the common case,
/// and is copied in one piece, but for the case of its Guid's digits.
/// </para>
/// </remarks>
internal static class PlainWidget
{
    // The bytes between a widget's opening brace and its Guid's first digit in canonical layout, and a Guid's length.
    private const int GuidStart = 7;
    private const int GuidLength = 36;

    // The lengths of a canonical instant, "2024-03-10T10:34:56Z", without a fraction and with one of 7 digits.
    private const int WholeSecondsInstant = 20;
    private const int LongestInstant = 28;

    // Where the Guid's closing quote is in canonical layout; each member's quotes (two around its name, two around its
    // value), the fourth of which, the first of all counted from 0 being quote 0, closes its value.
    private const int GuidEnd = GuidStart + GuidLength;
    private const int QuotesPerMember = 4;
    private const int ClosingQuote = QuotesPerMember - 1;

    // One bit in four, the pattern that picks every fourth quote.
    private const ulong FourthQuotes = 0x1111_1111_1111_1111;

    // What a string may hold and come out unchanged: printable ASCII and DEL, less the quote and backslash, which a
    // plain string cannot hold. Every other byte is escaped, an escape, a control character or part of a longer
    // character, which the slow path handles.
    private static readonly SearchValues<byte> PlainText = SearchValues.Create(
        [.. Enumerable.Range(0x20, 0x60).Where(b => b is not '"' and not '\\').Select(b => (byte)b)]);

    // What a Guid's digits in "D" format may hold, in either case.
    private static readonly SearchValues<byte> GuidDigits = SearchValues.Create("0123456789abcdefABCDEF-"u8);

    // Each member's bytes before its value in canonical layout, the value's opening quote included: the canonical
    // writer's prefixes, which end with that quote for the string members and leave it to the Guid and the instant.
    private static readonly CanonicalPrefix[] Prefixes =
        [.. Enumerable.Range(0, WidgetMembers.Count).Select(member => new CanonicalPrefix(member is WidgetMembers.Id or WidgetMembers.CreatedUtc
            ? [.. WidgetMembers.Prefix(member), (byte)'"']
            : WidgetMembers.Prefix(member).ToArray()))];

    private static readonly Vector512<byte> Quote = Vector512.Create((byte)'"');

    // A canonical instant's first 16 bytes, where they are not digits, and which of them are digits.
    private static readonly Vector128<byte> InstantLayout = Vector128.Create("0000-00-00T00:00"u8);
    private static readonly Vector128<byte> InstantDigits = Vector128.Equals(InstantLayout, Vector128.Create((byte)'0'));

    // JSON's whitespace, the only bytes the tokenizer skips between tokens (comments are refused).
    private static readonly SearchValues<byte> Whitespace = SearchValues.Create(" \t\r\n"u8);

    /// <summary>
    /// Writes the canonical bytes of the widget <paramref name="widget"/> starts with, if it is plain and all there;
    /// writes nothing otherwise.
    /// </summary>
    /// <param name="widget">The bytes from the widget's opening brace to wherever the buffer ends.</param>
    /// <param name="comma">Whether to write a comma before the widget.</param>
    /// <param name="cursor">Where the canonical bytes go.</param>
    /// <returns>The widget's length, closing brace included; -1 when it is not plain or not all in the buffer.</returns>
    public static int Copy(scoped ReadOnlySpan<byte> widget, bool comma, ref BufferCursor cursor)
    {
        var length = MatchCanonical(widget);

        // Stryker disable once Conditional,Equality : CopyAnyLayout writes a canonical widget too, and the same bytes, so
        // taking it is slower, not wrong; MatchCanonical never returns 0. PlainWidgetRecognitionTests hold MatchCanonical.
        return length >= 0 ? CopyCanonical(widget[..length], comma, ref cursor) : CopyAnyLayout(widget, comma, ref cursor);
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

    // Writes a widget in canonical layout, whose bytes are canonical but for the Guid's case and perhaps the instant.
    private static int CopyCanonical(scoped ReadOnlySpan<byte> widget, bool comma, ref BufferCursor cursor)
    {
        var instantEnd = widget.Length - 1;
        var instantStart = widget[..(instantEnd - 1)].LastIndexOf((byte)'"');
        var id = widget.Slice(GuidStart, GuidLength);
        if (!IsGuid(id) ||
            !ReadInstant(widget[instantStart..instantEnd], out var instant, out var instantIsCanonical))
        {
            return -1;
        }

        var prefix = comma ? 1 : 0;
        var copied = prefix + (instantIsCanonical ? widget.Length : instantStart);
        var copy = cursor.Reserve(copied);
        if (comma)
        {
            copy[0] = (byte)',';
        }

        widget[..(copied - prefix)].CopyTo(copy[prefix..]);
        Ascii.ToLower(id, copy.Slice(prefix + GuidStart, GuidLength), out _);
        cursor.Advance(copied);
        if (!instantIsCanonical)
        {
            CanonicalValues.WriteDate(ref cursor, instant);
            cursor.Write((byte)'}');
        }

        return widget.Length;
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
        if (quotedId.Length != GuidLength + 2 || !IsGuid(quotedId[1..^1]) ||
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

    // The length of the widget if it is in canonical layout with plain strings: the names and separators exactly as
    // the canonical document has them; -1 otherwise. Its Guid and instant are left to be read.
    internal static int MatchCanonical(ReadOnlySpan<byte> widget)
    {
        // {"id":"<36 bytes>","property0":" (a widget in canonical layout is longer than one block).
        if (widget.Length < Vector512<byte>.Count || !widget.StartsWith(Prefixes[WidgetMembers.Id].Text) || widget[GuidEnd] != '"' ||
            !Prefixes[WidgetMembers.Id + 1].StartsAt(widget, GuidEnd + 1))
        {
            return -1;
        }

        // ,"propertyN":"<text>" for each string member, then ,"createdUtc":"<text>"}. No value holds a quote, so in
        // that layout every fourth quote closes a value and the next member's prefix starts after it; the prefix puts
        // the three quotes before the next closing one in their places. So the closing quotes are picked from each
        // block's quotes by their count alone, and nothing waits on where the last value ended but the comparison of
        // the prefix after it. The same loads refuse any byte no plain string may hold, in any value.
        var quotesBefore = QuotesPerMember;
        var fromGuidEnd = ulong.MaxValue << (GuidEnd + 1);
        var member = WidgetMembers.Id + 1;
        ulong refused = 0;
        for (var block = 0; block < widget.Length; block += Vector512<byte>.Count)
        {
            // The last block is loaded from the buffer's end, and its bytes before the block shifted out of its masks.
            var at = Math.Min(block, widget.Length - Vector512<byte>.Count);
            var bytes = Vector512.LoadUnsafe(ref MemoryMarshal.GetReference(widget), (nuint)at);
            var quotes = (Vector512.Equals(bytes, Quote).ExtractMostSignificantBits() >> (block - at)) & fromGuidEnd;
            var closing = DepositBits(FourthQuotes << ((ClosingQuote - quotesBefore) & 3), quotes);
            var refusedHere = IsRefused(bytes).ExtractMostSignificantBits() >> (block - at);
            fromGuidEnd = ulong.MaxValue;
            quotesBefore += BitOperations.PopCount(quotes);
            for (; closing != 0; closing &= closing - 1, member++)
            {
                var end = block + BitOperations.TrailingZeroCount(closing);
                if (member == WidgetMembers.CreatedUtc)
                {
                    refused |= refusedHere & ~(ulong.MaxValue << (end - block));
                    return end + 1 < widget.Length && widget[end + 1] == '}' && refused == 0 ? end + 2 : -1;
                }

                if (!Prefixes[member + 1].StartsAt(widget, end + 1))
                {
                    return -1;
                }
            }

            refused |= refusedHere;
        }

        return -1;
    }

    // The bytes a plain string cannot hold: control bytes, those above DEL, and the backslash.
    private static Vector512<byte> IsRefused(Vector512<byte> bytes) =>
        Vector512.GreaterThan(bytes - Vector512.Create((byte)' '), Vector512.Create((byte)(0x7F - ' '))) |
        Vector512.Equals(bytes, Vector512.Create((byte)'\\'));

    // The bits of mask picked by pattern: mask's lowest set bit if pattern's lowest bit is set, its second if the next
    // is, and so on: x86's pdep, which DepositBitsOneByOne writes out where it is missing.
    private static ulong DepositBits(ulong pattern, ulong mask) =>
        Bmi2.X64.IsSupported ? Bmi2.X64.ParallelBitDeposit(pattern, mask) : DepositBitsOneByOne(pattern, mask);

    /// <summary>What x86's <c>pdep</c> gives, one set bit of <paramref name="mask"/> at a time.</summary>
    internal static ulong DepositBitsOneByOne(ulong pattern, ulong mask)
    {
        ulong deposited = 0;
        for (; mask != 0 && pattern != 0; mask &= mask - 1, pattern >>= 1)
        {
            deposited |= mask & (0 - mask) & (0 - (pattern & 1));
        }

        return deposited;
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
        digits.Length == GuidLength && digits[8] == '-' && digits[13] == '-' && digits[18] == '-' && digits[23] == '-' &&
        digits.Count((byte)'-') == 4 && !digits.ContainsAnyExcept(GuidDigits);

    // The instant in quoted, by the object path's rules; whether its text is already as the canonical document has it.
    private static bool ReadInstant(ReadOnlySpan<byte> quoted, out DateTime instant, out bool isCanonical)
    {
        instant = default;
        isCanonical = IsCanonicalInstant(quoted[1..^1]);
        if (isCanonical)
        {
            return true;
        }

        // Another form, read as a token of its own, quotes included.
        var reader = new Utf8JsonReader(quoted, EnvelopeParser.ReaderOptions);
        reader.Read();
        return UtcInstantConverter.TryRead(ref reader, out instant);
    }

    // Whether text is an instant as CanonicalValues.WriteDate writes it: UTC, to the second or with a fraction of 1 to 7
    // digits that does not end with 0, and a real date and time (which the tokenizer checks for any other form). Every
    // widget's instant comes through here, so its first 16 bytes, "yyyy-MM-ddTHH:mm", are checked in one load.
    internal static bool IsCanonicalInstant(ReadOnlySpan<byte> text)
    {
        if (text.Length is < WholeSecondsInstant or > LongestInstant || text.Length == WholeSecondsInstant + 1 ||
            text[^1] != 'Z' || text[16] != ':' || !char.IsAsciiDigit((char)text[17]) || !char.IsAsciiDigit((char)text[18]))
        {
            return false;
        }

        var head = Vector128.Create(text);
        var isDigit = Vector128.LessThan(head - Vector128.Create((byte)'0'), Vector128.Create((byte)10));
        if (!Vector128.ConditionalSelect(InstantDigits, isDigit, Vector128.Equals(head, InstantLayout)).Equals(Vector128<byte>.AllBitsSet))
        {
            return false;
        }

        if (text.Length > WholeSecondsInstant &&
            (text[19] != '.' || text[20..^1].ContainsAnyExceptInRange((byte)'0', (byte)'9') || text[^2] == '0'))
        {
            return false;
        }

        var year = (Number(text, 0) * 100) + Number(text, 2);
        var month = Number(text, 5);
        var day = Number(text, 8);
        return year >= 1 && month is >= 1 and <= 12 && day >= 1 && day <= DateTime.DaysInMonth(year, month) &&
            Number(text, 11) <= 23 && Number(text, 14) <= 59 && Number(text, 17) <= 59;
    }

    // The value of the two digits at at, known to be digits.
    private static int Number(ReadOnlySpan<byte> text, int at) => ((text[at] - '0') * 10) + text[at + 1] - '0';

    // A member's prefix, as bytes and as MatchCanonical compares it: padded with zeros to a vector, with a mask of the
    // bytes that are its own.
    private readonly struct CanonicalPrefix(byte[] text)
    {
        public byte[] Text { get; } = text;

        private Vector128<byte> Bytes { get; } = Vector128.Create<byte>([.. text, .. new byte[Vector128<byte>.Count - text.Length]]);

        private Vector128<byte> Mask { get; } = Vector128.LessThan(Vector128<byte>.Indices, Vector128.Create((byte)text.Length));

        // Whether buffer holds the prefix at at, in one masked comparison. A widget in canonical layout has a vector's
        // bytes from any prefix on (its shortest ending, ',"createdUtc":""}', is longer than one), so where the buffer
        // has fewer the prefix may be there, but not the whole widget.
        public bool StartsAt(ReadOnlySpan<byte> buffer, int at) =>
            at <= buffer.Length - Vector128<byte>.Count &&
            ((Vector128.LoadUnsafe(ref MemoryMarshal.GetReference(buffer), (nuint)at) ^ Bytes) & Mask).Equals(Vector128<byte>.Zero);
    }
}
