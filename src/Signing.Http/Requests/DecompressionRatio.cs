namespace Signing.Http.Requests;

/// <summary>
/// How far a compressed body may inflate: to <see cref="Allowance"/> plus <c>Signing:MaxDecompressionRatio</c> times
/// the bytes that have come on the wire for it. The body limit alone lets a few KB of gzip inflate to the whole limit in
/// spaces, inflated in full and, by a buffering strategy, held; this bounds what each byte sent can cost.
/// </summary>
internal sealed class DecompressionRatio(GuardedBodyReader wire, int most)
{
    /// <summary>
    /// What any compressed body may decompress to whatever its size on the wire: a small envelope's compressed form is
    /// mostly its header and trailer, and a decompressor hands out 16 KiB or more before it has read much.
    /// </summary>
    public const long Allowance = 64 * 1024;

    /// <summary>The multiple of its bytes on the wire that a body may decompress to.</summary>
    public int Most => most;

    /// <summary>Whether <paramref name="decompressed"/> bytes are within what the bytes seen on the wire so far allow.</summary>
    public bool Allows(long decompressed) => decompressed <= Allowance + (wire.BytesSeen * most);
}
