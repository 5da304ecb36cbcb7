namespace Signing.Http.Memory;

/// <summary>
/// What a sign or verify request holds while it is in flight, from its body's size and its strategy: the amount it is
/// charged against the <see cref="InFlightBudget"/>, phase by phase as it comes to hold it (<see cref="ForArrivedBody"/>
/// while the body arrives, <see cref="ForParse"/> before parsing, <see cref="For"/> before signing), never for bytes a
/// client has only promised. Every figure is measured (3,000 and 30,000 widgets, the
/// <c>Parse-Allocated-Bytes</c> and <c>Sign-Allocated-Bytes</c> response headers per body byte, and the pool's blocks);
/// allocation is an upper bound of what stays alive, so the charge errs high.
/// </summary>
/// <remarks>
/// A strategy's own part is charged per byte of the canonical document, which is known to be at most
/// <see cref="CanonicalLength.AtMost"/> once the body is parsed: about as long as the body, shorter for one with
/// whitespace or escapes, and up to three times as long for strings of raw U+0085, U+2028 or U+2029.
/// </remarks>
public static class RequestMemory
{
    /// <summary>The body itself, in the pool's blocks.</summary>
    public const double BodyBytesPerBodyByte = 1.0;

    /// <summary>The parsed envelope (UTF-16 strings, boxed widgets, the list): 1.95 measured, at both sizes.</summary>
    public const double EnvelopeBytesPerBodyByte = 2.0;

    /// <summary>
    /// What every request holds whatever its size: the last, partly filled block of the body and of a recyclable
    /// strategy's document, and two 16 KiB chunks (the body reader's and <c>utf8</c>'s).
    /// </summary>
    public static long FixedBytes(int blockSize) => 2L * blockSize + 32 * 1024;

    /// <summary>
    /// What <c>transcode</c> can hold per body byte, at worst: nothing grows with an ordinary body, but the tokenizer
    /// needs a whole token in its buffer, and one token can be as long as the body; a member that arrives out of order
    /// is also copied aside until its widget ends.
    /// </summary>
    public const double TranscodeBytesPerBodyByte = 2.0;

    /// <summary>
    /// The charge for the part of a body that has arrived, <paramref name="bodyBytes"/>, while an envelope strategy
    /// drains it: the pool's blocks it fills, whole, since a block is taken whole when its first byte is written. Nothing
    /// before the first byte: a request that has sent only its headers holds no more than Kestrel's own buffer.
    /// </summary>
    public static long ForArrivedBody(long bodyBytes, int blockSize) =>
        bodyBytes <= 0 ? 0 : (bodyBytes + blockSize - 1) / blockSize * blockSize;

    /// <summary>
    /// The charge for a body of <paramref name="bodyBytes"/> once it has all arrived and is being parsed: the body and
    /// the envelope built from it, before the strategy holds anything.
    /// </summary>
    public static long ForParse(long bodyBytes, int blockSize) =>
        FixedBytes(blockSize) + (long)Math.Ceiling(bodyBytes * (BodyBytesPerBodyByte + EnvelopeBytesPerBodyByte));

    /// <summary>
    /// The charge for a body of <paramref name="bodyBytes"/> signed with <c>transcode</c>, raised as its bytes arrive,
    /// since reading and signing are one pass.
    /// </summary>
    public static long ForTranscode(long bodyBytes, int blockSize) =>
        FixedBytes(blockSize) + (long)Math.Ceiling(bodyBytes * TranscodeBytesPerBodyByte);

    /// <summary>
    /// The charge for a body of <paramref name="bodyBytes"/> whose canonical document takes at most
    /// <paramref name="documentBytes"/>, signed with <paramref name="strategy"/>: the most the request holds, taken
    /// once it is parsed and before the strategy signs.
    /// </summary>
    public static long For(ISigningStrategy strategy, long bodyBytes, long documentBytes, int blockSize)
    {
        ArgumentNullException.ThrowIfNull(strategy);
        return FixedBytes(blockSize) + (long)Math.Ceiling(
            bodyBytes * (BodyBytesPerBodyByte + EnvelopeBytesPerBodyByte) + documentBytes * strategy.HeldBytesPerDocumentByte);
    }
}
