using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Signing.Transcoding;

/// <summary>
/// Recognizes an instant written exactly as <see cref="CanonicalValues.WriteDate"/> writes it: UTC, to the second or
/// with a fraction of 1 to 7 digits that does not end with 0, and a real date and time (which the tokenizer checks for
/// any other form). Such an instant is copied as it is; any other is read and written again.
/// </summary>
/// <remarks>
/// Every widget's instant is checked here, and instants come in several lengths in no order (whole seconds,
/// milliseconds, ticks), so the length picks a layout from a table instead of steering branches: the first 16 bytes
/// and the last 16 are compared at once with the layout made for the instant's length, and the month, day, hour,
/// minute and second with their limits in one vector. Only a day past the 28th, rare, asks the calendar.
/// </remarks>
internal static class CanonicalInstant
{
    // "2024-03-10T10:34:56Z", and the same with seven digits of fraction.
    private const int WholeSeconds = 20;
    private const int Longest = 28;

    // Where the month's first digit is, less 2: the 16 bytes from there hold the month, day, hour, minute and second.
    private const int ValuesStart = 3;

    // Per length, an instant's first 16 bytes and its last 16 as they must be: a digit where the layout has 0, a digit
    // other than '0' where it has 1 (a fraction's last), any other byte as it is. No instant is 21 bytes long (a '.'
    // with no digit after it), so that length has no layout.
    // Stryker disable once Arithmetic : layouts for lengths past the longest are built and never read.
    private static readonly Vector256<byte>[] Layouts =
        [.. Enumerable.Range(WholeSeconds, Longest - WholeSeconds + 1).Select(length => length == WholeSeconds + 1 ? default : Layout(length))];

    // The tens of a digit, and where each value's tens and ones are in the 16 bytes from ValuesStart: month, day, hour,
    // minute, second, then the first digit again to fill the vector (every index within it, where ShuffleNative is the
    // same on every platform). The filling is let through by the limits.
    private static readonly Vector128<byte> Tens = Vector128.Create((byte)0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 0, 0, 0, 0, 0, 0);
    private static readonly Vector128<byte> TensAt = Vector128.Create((byte)2, 5, 8, 11, 14, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2);
    private static readonly Vector128<byte> OnesAt = Vector128.Create((byte)3, 6, 9, 12, 15, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3);
    private static readonly Vector128<byte> Least = Vector128.Create((byte)1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    private static readonly Vector128<byte> Most = Vector128.Create((byte)12, 31, 23, 59, 59, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99);

    /// <summary>Whether <paramref name="text"/>, an instant's text without its quotes, is as the canonical document writes it.</summary>
    /// <remarks>
    /// Inlined into the walk, which asks once a widget: as a call it cost 5 to 6 µs of the walk's 81 a 1 MB body
    /// (measured in process, the walk alone: 75 µs inlined).
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Matches(ReadOnlySpan<byte> text)
    {
        var length = text.Length;
        if (length is < WholeSeconds or > Longest || length == WholeSeconds + 1)
        {
            return false;
        }

        ref var start = ref MemoryMarshal.GetReference(text);
        var bytes = Vector256.Create(Vector128.LoadUnsafe(ref start), Vector128.LoadUnsafe(ref start, (nuint)(length - Vector128<byte>.Count)));
        var layout = Layouts[length - WholeSeconds];
        var isFixed = Vector256.GreaterThan(layout, Vector256<byte>.One);
        var misplaced = (isFixed & ~Vector256.Equals(bytes, layout)) |
            (~isFixed & ~Vector256.LessThan(bytes - Vector256.Create((byte)'0'), Vector256.Create((byte)10))) |
            (Vector256.Equals(layout, Vector256<byte>.One) & Vector256.Equals(bytes, Vector256.Create((byte)'0')));
        if (misplaced != Vector256<byte>.Zero || text.StartsWith("0000"u8))
        {
            return false;
        }

        var digits = Vector128.LoadUnsafe(ref start, ValuesStart) - Vector128.Create((byte)'0');
        var values = Vector128.ShuffleNative(Tens, Vector128.ShuffleNative(digits, TensAt)) + Vector128.ShuffleNative(digits, OnesAt);
        if ((Vector128.LessThan(values, Least) | Vector128.GreaterThan(values, Most)) != Vector128<byte>.Zero)
        {
            return false;
        }

        // Days to the 28th are in every month.
        var day = values[1];

        // Stryker disable once Equality : asking the calendar about the 28th gives the same answer.
        return day <= 28 || day <= DateTime.DaysInMonth((Number(text, 0) * 100) + Number(text, 2), values[0]);
    }

    private static Vector256<byte> Layout(int length)
    {
        ReadOnlySpan<byte> fraction = length == WholeSeconds ? [] : [(byte)'.', .. new byte[length - WholeSeconds - 2], 1];
        byte[] text = [.. "0000-00-00T00:00:00"u8.ToArray().Select(b => b == '0' ? (byte)0 : b), .. fraction, (byte)'Z'];
        return Vector256.Create(Vector128.Create(text.AsSpan(0, Vector128<byte>.Count)), Vector128.Create(text.AsSpan(length - Vector128<byte>.Count)));
    }

    // The value of the two digits at at, known to be digits.
    private static int Number(ReadOnlySpan<byte> text, int at) => ((text[at] - '0') * 10) + text[at + 1] - '0';
}
