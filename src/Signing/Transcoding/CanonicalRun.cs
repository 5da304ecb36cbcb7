using System.Buffers;
using System.Numerics;
using System.Runtime.CompilerServices;
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
/// member's prefix (or, after a widget's last, its closing brace and the next widget's start). So the walk has two
/// stages, neither of which branches on the lengths of the values: the closing quotes are found 64 bytes at a time,
/// picked from the quotes by their count alone and written out three a block whatever their number; then each widget's
/// twelve are checked together, the prefix after each compared where it must be and the differences tested once.
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

    // The bytes of a prefix that the walk compares: a string member's are all 14 of them; the instant's has a 15th, its
    // opening quote. Were that byte not a quote, the instant's opening quote would be in what is taken for its text,
    // which CanonicalInstant refuses.
    private const int ComparedPrefixBytes = 14;

    // The instant's prefix, its opening quote included: the instant starts this many bytes after the closing quote before.
    private const int CreatedUtcPrefixLength = ComparedPrefixBytes + 1;

    // The most widgets one walk finds before they are checked (see Measure): 448 bytes of closing quotes on the stack,
    // zeroed at each call (16 widgets were no faster, and 64, 3 KiB, cost a memset a request could see).
    private const int WidgetsPerWalk = 8;

    // A block of 64 bytes holds at most 16 closing quotes, four a member.
    private const int MostClosingPerBlock = 16;

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

    // The bytes a plain string and its quotes may hold: printable ASCII and DEL, less the backslash (see IsRefused).
    private static readonly SearchValues<byte> Unrefused =
        SearchValues.Create([.. Enumerable.Range(' ', 0x80 - ' ').Where(b => b != '\\').Select(b => (byte)b)]);

    /// <summary>
    /// How many bytes of <paramref name="buffer"/>, from its start, are widgets in canonical layout, one after another,
    /// up to the last one's closing brace; 0 when the first is not one or not all in the buffer.
    /// </summary>
    /// <param name="buffer">The bytes from a widget's opening brace to wherever the buffer ends.</param>
    /// <param name="most">How many widgets the run may hold at most.</param>
    /// <param name="afterCut">
    /// Whether the widget was cut by the end of the last buffer, after widgets that were copied: a run is then likely to
    /// go on, and is looked ahead at in full-length walks from the first widget on, instead of in walks that grow with it.
    /// </param>
    /// <param name="widgets">How many widgets the run holds.</param>
    /// <param name="upperCaseGuid">
    /// Where the last widget's Guid starts if it has upper-case digits (copy it in lower case); -1 otherwise.
    /// </param>
    public static int Measure(ReadOnlySpan<byte> buffer, int most, bool afterCut, out int widgets, out int upperCaseGuid)
    {
        widgets = 0;
        upperCaseGuid = -1;

        // A widget that is not in canonical layout seldom starts as one: it is refused here, before any walk.
        // Stryker disable once Equality,Block : one load's bytes hold no whole widget either, and the walk refuses the
        // same widgets, only later.
        if (buffer.Length < Vector512<byte>.Count || !IsHead(buffer, 0, out _))
        {
            return 0;
        }

        // Not stackalloc: the JIT compiles a method that allocates on the stack fully at once, without the profile or
        // the static values as constants that tiering gives it (5 µs of 100 a 1 MB body, in 16 KiB pieces).
        var positions = default(ClosingPositions);
        Span<int> closing = positions;
        var run = 0;
        var start = 0;
        while (true)
        {
            // Each walk looks ahead as far as the run has come so far: a run that a non-canonical widget soon ends wastes
            // at most the work it did, and a long one is walked WidgetsPerWalk widgets at a time. After a cut the run is
            // walked that far from the start: a body's pieces are cut every few KiB, and growing the walks again in each
            // piece cost 10 µs of 810 a 1 MB body read 4 KiB at a time.
            // Stryker disable once Conditional : walks of either length find the same run; the tests measure both.
            var walk = Math.Min(afterCut ? WidgetsPerWalk : Math.Min(WidgetsPerWalk, Math.Max(1, widgets)), most - widgets);
            var found = FindClosingQuotes(buffer, start, walk * WidgetMembers.Count, closing, out var refusedAt);
            var whole = Math.Min(walk, found / WidgetMembers.Count);
            for (var i = 0; i < whole; i++)
            {
                var quotes = closing.Slice(i * WidgetMembers.Count, WidgetMembers.Count);
                if (!IsWidget(buffer, start, quotes, refusedAt, out var upperCase))
                {
                    return run;
                }

                widgets++;
                var end = quotes[WidgetMembers.CreatedUtc];
                run = end + 2;
                if (upperCase)
                {
                    upperCaseGuid = start + GuidStart;
                    return run;
                }

                // The widget's closing brace is checked; a comma after it starts the next.
                start = run + 1;

                // Stryker disable once Equality : from the buffer's end the next walk finds nothing either.
                if (start >= buffer.Length || buffer[run] != ',')
                {
                    return run;
                }
            }

            if (whole < walk || widgets == most)
            {
                return run;
            }
        }
    }

    // Writes where each closing quote from start is (at least most of them, unless the buffer ends first) into closing,
    // a value's, found by counting quotes alone, and returns how many; refusedAt is where the first byte that no plain
    // string holds is, as far as the blocks read go. A block's closing quotes are written three at a time whatever their
    // count, so that the loop takes the same branches whatever the lengths of the values (up to a point: see Scan): the
    // widgets are checked afterwards, twelve closing quotes at a time.
    private static int FindClosingQuotes(ReadOnlySpan<byte> buffer, int start, int most, Span<int> closing, out int refusedAt)
    {
        refusedAt = int.MaxValue;

        // Measure has checked that the buffer holds a load's bytes, so every load below stays in it: from a start within
        // a load of the end, only the last load is read.

        // The quotes of a block that close a value, as a pattern of every fourth bit from the block's first quote on.
        var closingPattern = FourthQuotes << (QuotesPerMember - 1);
        var last = buffer.Length - Vector512<byte>.Count;
        var block = start;

        // The bytes no plain string holds are rare: the loop only keeps the least of the bytes read (as signed bytes,
        // those above DEL are negative) and the least of them XOR a backslash, and where the first is is found after it
        // (6 µs of 100 a 1 MB body, against finding it block by block).
        var least = Vector512.Create(sbyte.MaxValue);
        var leastFromBackslash = Vector512<byte>.AllBitsSet;

        ref var first = ref MemoryMarshal.GetReference(closing);
        ref var next = ref first;
        // next: where the next closing quote's place goes. A block is scanned while next is short of enough and fills
        // at most MostClosingPerBlock places, so the writes stay in closing unchecked (a check a block, through a span,
        // cost 7 µs of 141 a 1 MB body without its HMAC, in process). closing holds most and a block more.
        // Stryker disable once Linq,Arithmetic : Max walks on past most to the same run; a larger cap leaves most.
        ref var enough = ref Unsafe.Add(ref first, Math.Min(most, closing.Length - MostClosingPerBlock));

        // Stryker disable once Equality,Logical : a block that ends at the buffer's end is read after the loop instead,
        // alike; one more block only finds quotes past those needed. With "or", the loop would write past closing's end.
        for (; block <= last && Unsafe.IsAddressLessThan(ref next, ref enough); block += Vector512<byte>.Count)
        {
            var bytes = Vector512.LoadUnsafe(ref MemoryMarshal.GetReference(buffer), (nuint)block);
            least = Vector512.Min(least, bytes.AsSByte());
            leastFromBackslash = Vector512.Min(leastFromBackslash, bytes ^ Vector512.Create((byte)'\\'));
            next = ref Scan(bytes, block, 0, ref closingPattern, ref next);
        }

        if (Vector512.LessThanAny(least, Vector512.Create((sbyte)' ')) || Vector512.EqualsAny(leastFromBackslash, Vector512<byte>.Zero))
        {
            refusedAt = start + buffer[start..block].IndexOfAnyExcept(Unrefused);
        }

        // The last block is loaded from the buffer's end, and its bytes before the block shifted out of its masks.
        // Stryker disable once Equality,Logical : a block at the buffer's end finds closing quotes past it, where no prefix
        // or brace fits, so the run ends where it would have; one more block only finds quotes past those needed.
        var hasLastBlock = block < buffer.Length && Unsafe.IsAddressLessThan(ref next, ref enough);
        if (hasLastBlock)
        {
            var bytes = Vector512.LoadUnsafe(ref MemoryMarshal.GetReference(buffer), (nuint)last);

            // Stryker disable once Bitwise : the mask is unsigned, so ">>>" is ">>".
            var refused = IsRefused(bytes).ExtractMostSignificantBits() >> (block - last);
            if (refused != 0 && refusedAt == int.MaxValue)
            {
                refusedAt = block + BitOperations.TrailingZeroCount(refused);
            }

            next = ref Scan(bytes, block, block - last, ref closingPattern, ref next);
        }

        return (int)(Unsafe.ByteOffset(ref first, ref next) / sizeof(int));
    }

    // One block's part of FindClosingQuotes: its bytes, where it starts, and how many of its first bytes an earlier block
    // has read already. Writes the block's closing quotes from slot on, and returns the place after them.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref int Scan(Vector512<byte> bytes, int block, int shift, scoped ref ulong closingPattern, ref int slot)
    {
        // Stryker disable once Bitwise : the mask is unsigned, so ">>>" is ">>".
        var quotes = Vector512.Equals(bytes, Quote).ExtractMostSignificantBits() >> shift;
        var closes = DepositBits(closingPattern, quotes);

        // The pattern repeats every four bits, so turning it by the block's quotes counts on from the next block's first.
        closingPattern = BitOperations.RotateRight(closingPattern, BitOperations.PopCount(quotes));
        var n = BitOperations.PopCount(closes);

        // Three slots, written whether used or not: from one closing quote to the next a member takes its 14-byte prefix,
        // its value and its closing quote, so a block holds at most three when values have 8 bytes or more, and the loop
        // below is for shorter ones. A fourth slot, which values of 8 to 17 bytes never fill, cost 7 µs a 1 MB body of
        // them (measured in process, the walk alone: 79 to 80 µs against 86 to 88). The third is taken as the last, from
        // the top, so that it waits on no other (it waited on two clearings and three counts): on an AVX2-only Zen 3 the
        // walk took 144 to 151 µs against 153 to 165 (the least of 20 rounds, six times, in a throwaway harness). Not
        // BitOperations.Log2, which gives 0 for no bits at all and so costs two instructions more a block (a slot past n
        // may hold anything).
        slot = block + BitOperations.TrailingZeroCount(closes);
        Unsafe.Add(ref slot, 2) = block + 63 - BitOperations.LeadingZeroCount(closes);
        closes &= closes - 1;
        Unsafe.Add(ref slot, 1) = block + BitOperations.TrailingZeroCount(closes);

        // Stryker disable once Equality : with three, the loop writes the third again, the same.
        if (n > 3)
        {
            // More than three: the last is not the third, which is written again with the rest.
            // Stryker disable once Equality : one slot more is written past the block's n, as the three above may be.
            for (var i = 2; i < n; i++)
            {
                closes &= closes - 1;
                Unsafe.Add(ref slot, i) = block + BitOperations.TrailingZeroCount(closes);
            }
        }

        return ref Unsafe.Add(ref slot, n);
    }

    // Whether the widget from start whose closing quotes quotes holds is in canonical layout, given that no byte before
    // refusedAt is refused. Its head is compared in one load, the prefix after each string member's closing quote in
    // one each, the differences gathered and tested once.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsWidget(ReadOnlySpan<byte> buffer, int start, ReadOnlySpan<int> quotes, int refusedAt, out bool upperCase)
    {
        // Stryker disable once Boolean : the caller reads it only of a widget taken, for which IsHead has set it.
        upperCase = false;
        var end = quotes[WidgetMembers.CreatedUtc];
        var lastPrefix = quotes[WidgetMembers.CreatedUtc - 1] + 1;

        // The widget's closing brace is in the buffer, and the loads below stay in it.
        if (end >= buffer.Length - 1)
        {
            return false;
        }

        // The head's load needs no bound of its own: it is made only once the ten prefixes have matched, which puts
        // more than 135 bytes between start and the widget's closing brace.
        // Stryker disable once Equality : no closing quote is a refused byte, and a widget ends more than 16 bytes after
        // its last prefix.
        if (refusedAt < end || lastPrefix > buffer.Length - Vector128<byte>.Count)
        {
            return false;
        }

        // Written out, as the JIT does not unroll loops: as a loop, the members cost 6 µs more a 1 MB body (of 112).
        // The head holds the prefix after the Guid's closing quote, so they start after it.
        ref var bytes = ref MemoryMarshal.GetReference(buffer);
        var differs =
            PrefixDiffers(ref bytes, quotes[1], 2) | PrefixDiffers(ref bytes, quotes[2], 3) |
            PrefixDiffers(ref bytes, quotes[3], 4) | PrefixDiffers(ref bytes, quotes[4], 5) |
            PrefixDiffers(ref bytes, quotes[5], 6) | PrefixDiffers(ref bytes, quotes[6], 7) |
            PrefixDiffers(ref bytes, quotes[7], 8) | PrefixDiffers(ref bytes, quotes[8], 9) |
            PrefixDiffers(ref bytes, quotes[9], 10) | PrefixDiffers(ref bytes, quotes[10], 11);

        return (differs & Vector128.LessThan(Vector128<byte>.Indices, Vector128.Create((byte)ComparedPrefixBytes))) == Vector128<byte>.Zero &&
            buffer[end + 1] == '}' &&
            IsHead(buffer, start, out upperCase) &&
            CanonicalInstant.Matches(buffer[(lastPrefix + CreatedUtcPrefixLength)..end]);
    }

    // How the 14 bytes after closingQuote differ from member's prefix, in the prefix's bytes (see Prefixes).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> PrefixDiffers(ref byte bytes, int closingQuote, int member) =>
        Vector128.LoadUnsafe(ref bytes, (nuint)(uint)closingQuote + 1) ^
            Vector128.LoadUnsafe(ref MemoryMarshal.GetArrayDataReference(Prefixes), (nuint)(member * Vector128<byte>.Count));

    // Whether buffer has a widget's head at at: its start, a Guid (whose digits are in upper case too if upperCase),
    // and the first string member's prefix. Its callers keep the load in the buffer: Measure by the buffer's length,
    // IsWidget by asking only after the widget's prefixes have matched.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
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

    // The bytes a plain string cannot hold: control bytes, those above DEL, and the backslash.
    // As signed bytes, those above DEL are negative, so one comparison finds them with the control bytes.
    private static Vector512<byte> IsRefused(Vector512<byte> bytes) =>
        Vector512.LessThan(bytes.AsSByte(), Vector512.Create((sbyte)' ')).AsByte() |
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

    // Where a walk's closing quotes are: its widgets' twelve each, and the block past them may write 16 more.
    [InlineArray((WidgetsPerWalk * WidgetMembers.Count) + MostClosingPerBlock)]
    private struct ClosingPositions
    {
        private int _first;
    }
}
