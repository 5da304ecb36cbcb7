using System.Numerics;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Signing.Transcoding;

/// <summary>
/// Finds the widgets at the start of a buffer that are written exactly as the canonical document writes them (no
/// whitespace, members in order, every value a plain string, the Guid in lower case and the instant canonical), one
/// after another with a comma between: their canonical bytes are their own, copied in one piece.
/// </summary>
/// <remarks>
/// <para>
/// No value of such a run holds a quote, and each widget has four quotes a member (two around its name, two around
/// its value), so every fourth quote of the run closes a value, and the bytes after each closing quote are the next
/// member's prefix (or, after a widget's last, its closing brace and the next widget's start). The quotes are found
/// 64 bytes at a time, the closing ones picked from them by their count alone, and each prefix compared where it
/// must be: no step waits on where the last value ended, as a walk from value to value would.
/// </para>
/// <para>
/// A widget's first 58 bytes (its start, its Guid's 36 digits and dashes, and the first string member's prefix) are
/// checked in one load against the layout, and its instant by <see cref="CanonicalInstant"/>. A Guid in
/// upper case ends the run with its widget, to be lowered as it is copied; any other difference ends it before the
/// widget, which <see cref="PlainWidget"/> or the tokenizer then reads.
/// </para>
/// </remarks>
internal static class CanonicalRun
{
    /// <summary>A Guid's length in "D" format: the digits <see cref="Measure"/>'s <c>upperCaseGuid</c> points at.</summary>
    public const int GuidLength = 36;

    // A widget's opening brace to its Guid's first digit.
    private const int GuidStart = 7;

    // Each member's quotes, the last of which closes its value.
    private const int QuotesPerMember = 4;

    // One bit in four, the pattern that picks every fourth quote.
    private const ulong FourthQuotes = 0x1111_1111_1111_1111;

    // What follows a widget's closing quote in a run: its closing brace, and the comma before the next widget.
    private static ReadOnlySpan<byte> WidgetEnd => "},"u8;

    // The bytes of a prefix that the walk compares: a string member's are all 14 of them; the instant's has a 15th, its
    // opening quote. Were that byte not a quote, the instant's opening quote would be in what is taken for its text,
    // which CanonicalInstant refuses.
    private const int ComparedPrefixBytes = 14;

    // The instant's prefix, its opening quote included: the instant starts this many bytes after the closing quote before.
    private const int CreatedUtcPrefixLength = ComparedPrefixBytes + 1;

    // The most widgets one walk finds before their heads and instants are checked (see Measure).
    private const int WidgetsPerWalk = 64;

    // A row of 16 bytes per member: its prefix's first ComparedPrefixBytes bytes, then zeros. It is read without bounds
    // checks and the mask is built where it is used, where it is a constant: a table of vectors and one of masks cost
    // loads and checks at every prefix, and a mask in a static field more (3,000 widgets in 16 KiB pieces: 125 and
    // 180 µs against 118).
    private static readonly byte[] Prefixes =
        [.. Enumerable.Range(0, WidgetMembers.Count).SelectMany(member => Prefix(member).Take(ComparedPrefixBytes).Concat(new byte[Vector128<byte>.Count]).Take(Vector128<byte>.Count))];

    // A widget's head, its first 58 bytes: its start, a Guid (a '0' for each digit) and the first string member's
    // prefix; which of its bytes are the Guid's digits, and which are fixed.
    private static readonly byte[] HeadText =
        [.. Prefix(WidgetMembers.Id), .. "00000000-0000-0000-0000-000000000000\""u8, .. Prefix(WidgetMembers.Id + 1)];

    // Stryker disable once Arithmetic : padding longer than the vector is cut to it.
    private static readonly Vector512<byte> Head = Vector512.Create<byte>([.. HeadText, .. new byte[Vector512<byte>.Count - HeadText.Length]]);

    // Stryker disable once Bitwise : a mask past the Guid also takes the first prefix's digit for one of its own, and the
    // walk compares that prefix again.
    private static readonly ulong HeadDigits =
        Vector512.Equals(Head, Vector512.Create((byte)'0')).ExtractMostSignificantBits() & (((1UL << GuidLength) - 1) << GuidStart);

    private static readonly ulong HeadFixed = ((1UL << HeadText.Length) - 1) & ~HeadDigits;

    private static readonly Vector512<byte> Quote = Vector512.Create((byte)'"');

    /// <summary>
    /// How many bytes of <paramref name="buffer"/>, from its start, are widgets in canonical layout, one after another,
    /// up to the last one's closing brace; 0 when the first is not one or not all in the buffer.
    /// </summary>
    /// <param name="buffer">The bytes from a widget's opening brace to wherever the buffer ends.</param>
    /// <param name="most">How many widgets the run may hold at most.</param>
    /// <param name="widgets">How many widgets the run holds.</param>
    /// <param name="upperCaseGuid">
    /// Where the last widget's Guid starts if it has upper-case digits (copy it in lower case); -1 otherwise.
    /// </param>
    public static int Measure(ReadOnlySpan<byte> buffer, int most, out int widgets, out int upperCaseGuid)
    {
        widgets = 0;
        upperCaseGuid = -1;
        Span<int> found = stackalloc int[2 * WidgetsPerWalk];
        var run = 0;
        var start = 0;
        while (true)
        {
            // The walk's widgets, then each one's head and instant, in order: the run ends at the first that fails.
            var count = Walk(buffer, start, Math.Min(WidgetsPerWalk, most - widgets), found, out var more);
            for (var i = 0; i < count; i++)
            {
                var end = found[2 * i];
                if (!IsHead(buffer, start, out var upperCase) || !CanonicalInstant.Matches(buffer[found[(2 * i) + 1]..end]))
                {
                    return run;
                }

                widgets++;
                run = end + 2;
                if (upperCase)
                {
                    upperCaseGuid = start + GuidStart;
                    return run;
                }

                start = run + 1;
            }

            if (!more || widgets == most)
            {
                return run;
            }
        }
    }

    // Finds the widgets from start (at most most of them) whose bytes outside their Guid and instant are as the canonical
    // document writes them, and writes each one's closing quote and where its instant starts into found; returns how
    // many, and whether another widget's start follows the last. Their heads and instants are left to the caller, so
    // that the walk calls nothing and keeps all it needs in registers.
    private static int Walk(ReadOnlySpan<byte> buffer, int start, int most, Span<int> found, out bool more)
    {
        more = false;
        var count = 0;

        // A widget is longer than one load, so fewer bytes hold none, and the loads below stay in the buffer.
        // Stryker disable once Equality,Arithmetic : from a start after a widget, the buffer has a load's bytes and the walk
        // finds no whole widget in fewer.
        if (buffer.Length - start < Vector512<byte>.Count)
        {
            return 0;
        }

        var member = WidgetMembers.Id;
        var instant = 0;
        var refusedAt = int.MaxValue;
        var quotesBefore = 0;
        // Stryker disable once Equality : a block at the buffer's end finds closing quotes past it, where no prefix or
        // brace fits, so the run ends where it would have.
        for (var block = start; block < buffer.Length; block += Vector512<byte>.Count)
        {
            // The last block is loaded from the buffer's end, and its bytes before the block shifted out of its masks.
            var at = Math.Min(block, buffer.Length - Vector512<byte>.Count);
            var bytes = Vector512.LoadUnsafe(ref MemoryMarshal.GetReference(buffer), (nuint)at);

            // Stryker disable Bitwise : the masks are unsigned, so ">>>" is ">>".
            var quotes = Vector512.Equals(bytes, Quote).ExtractMostSignificantBits() >> (block - at);
            var refused = IsRefused(bytes).ExtractMostSignificantBits() >> (block - at);

            // Stryker restore Bitwise
            if (refused != 0 && refusedAt == int.MaxValue)
            {
                refusedAt = block + BitOperations.TrailingZeroCount(refused);
            }

            var closing = DepositBits(FourthQuotes << ((QuotesPerMember - 1 - quotesBefore) & 3), quotes);
            quotesBefore += BitOperations.PopCount(quotes);
            for (; closing != 0; closing &= closing - 1)
            {
                var end = block + BitOperations.TrailingZeroCount(closing);
                if (member == WidgetMembers.CreatedUtc)
                {
                    // Stryker disable once Equality : a closing quote is not a refused byte, so refusedAt is never end.
                    var refusedInWidget = refusedAt < end;
                    if (refusedInWidget || end >= buffer.Length - 1 || buffer[end + 1] != '}')
                    {
                        return count;
                    }

                    found[2 * count] = end;
                    found[(2 * count) + 1] = instant;
                    count++;
                    if (!buffer[(end + 1)..].StartsWith(WidgetEnd))
                    {
                        return count;
                    }

                    if (count == most)
                    {
                        more = true;
                        return count;
                    }

                    member = WidgetMembers.Id;
                    continue;
                }

                // After the Guid's closing quote, the first prefix, which the head checks, is compared too: one branch
                // fewer.
                if (!StartsWithPrefix(buffer, end + 1, member + 1))
                {
                    return count;
                }

                // Where the instant starts, once the last string member's value has closed.
                instant = end + 1 + CreatedUtcPrefixLength;
                member++;
            }
        }

        return count;
    }

    // Whether buffer has a widget's head at at: its start, a Guid (whose digits are in upper case too if upperCase),
    // and the first string member's prefix. Asked only of widgets the walk found whole, which are longer than one load.
    private static bool IsHead(ReadOnlySpan<byte> buffer, int at, out bool upperCase)
    {
        var bytes = Vector512.LoadUnsafe(ref MemoryMarshal.GetReference(buffer), (nuint)at);
        var differs = (~Vector512.Equals(bytes, Head)).ExtractMostSignificantBits();
        var digits = Vector512.LessThan(bytes - Vector512.Create((byte)'0'), Vector512.Create((byte)10)) |
            Vector512.LessThan(bytes - Vector512.Create((byte)'a'), Vector512.Create((byte)6));
        var upper = Vector512.LessThan(bytes - Vector512.Create((byte)'A'), Vector512.Create((byte)6)).ExtractMostSignificantBits() & HeadDigits;
        upperCase = upper != 0;
        return (differs & HeadFixed) == 0 && ((digits.ExtractMostSignificantBits() | upper) & HeadDigits) == HeadDigits;
    }

    // Whether buffer holds member's prefix at at, in one masked comparison. A widget has more than 16 bytes from any
    // prefix on (its shortest ending, ',"createdUtc":""}', is longer), so where the buffer has fewer it is not all there.
    // Stryker disable once Equality : a prefix that ends at the buffer's end has no widget's end after it.
    private static bool StartsWithPrefix(ReadOnlySpan<byte> buffer, int at, int member) =>
        at <= buffer.Length - Vector128<byte>.Count &&
        ((Vector128.LoadUnsafe(ref MemoryMarshal.GetReference(buffer), (nuint)at) ^
            Vector128.LoadUnsafe(ref MemoryMarshal.GetArrayDataReference(Prefixes), (nuint)(member * Vector128<byte>.Count))) &
            Vector128.LessThan(Vector128<byte>.Indices, Vector128.Create((byte)ComparedPrefixBytes))).Equals(Vector128<byte>.Zero);

    // The bytes a plain string cannot hold: control bytes, those above DEL, and the backslash.
    private static Vector512<byte> IsRefused(Vector512<byte> bytes) =>
        Vector512.GreaterThan(bytes - Vector512.Create((byte)' '), Vector512.Create((byte)(0x7F - ' '))) |
        Vector512.Equals(bytes, Vector512.Create((byte)'\\'));

    // Each member's bytes before its value in canonical layout, the value's opening quote included.
    private static byte[] Prefix(int member) =>
        member is WidgetMembers.Id or WidgetMembers.CreatedUtc ? [.. WidgetMembers.Prefix(member), (byte)'"'] : WidgetMembers.Prefix(member).ToArray();

    // The bits of mask picked by pattern: mask's lowest set bit if pattern's lowest bit is set, its second if the next
    // is, and so on: x86's pdep, which DepositBitsOneByOne writes out where it is missing.
    // Stryker disable once Conditional : either way gives the same bits; BitDepositTests hold the written-out one.
    private static ulong DepositBits(ulong pattern, ulong mask) =>
        Bmi2.X64.IsSupported ? Bmi2.X64.ParallelBitDeposit(pattern, mask) : DepositBitsOneByOne(pattern, mask);

    /// <summary>What x86's <c>pdep</c> gives, one set bit of <paramref name="mask"/> at a time.</summary>
    internal static ulong DepositBitsOneByOne(ulong pattern, ulong mask)
    {
        ulong deposited = 0;
        for (; mask != 0; mask &= mask - 1)
        {
            // Each bit is deposited once, so adding it sets it.
            deposited += mask & (0 - mask) & (0 - (pattern & 1));

            // Stryker disable once Assignment : pattern is unsigned, so ">>>=" is ">>=".
            pattern >>= 1;
        }

        return deposited;
    }
}
