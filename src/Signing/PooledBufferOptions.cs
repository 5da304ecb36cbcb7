namespace Signing;

/// <summary>
/// Sizes for <see cref="BufferPool"/>, bound from configuration section <c>Signing:Buffers</c>. The defaults suit
/// envelopes up to a few MB on a server with tens of concurrent requests.
/// </summary>
public sealed class PooledBufferOptions
{
    /// <summary>
    /// The first buffer a sign rents. Smaller wastes copies while the buffer doubles; larger holds memory a small
    /// request never touches. 64 KiB covers a few hundred widgets in one buffer.
    /// </summary>
    public int InitialCapacityBytes { get; set; } = 64 * 1024;

    /// <summary>
    /// The largest buffer the pool keeps. A document that needs more still works, but its buffer is allocated and
    /// dropped like a plain array. 4 MiB covers the 3,000-widget (1.1 MB) envelope with room to spare.
    /// </summary>
    public int MaximumArrayLength { get; set; } = 4 * 1024 * 1024;

    /// <summary>
    /// How many free buffers of each size the pool keeps. This bounds the memory an idle pool holds (see
    /// <see cref="MaximumFreeBytes"/>): an unbounded free pool cannot be told apart from a leak.
    /// </summary>
    public int MaximumArraysPerBucket { get; set; } = 16;

    /// <summary>
    /// The most memory the free buffers can hold: every power-of-two bucket from 16 bytes up to
    /// <see cref="MaximumArrayLength"/>, full. With the defaults, just under 128 MiB.
    /// </summary>
    public long MaximumFreeBytes => 2L * RoundUpToPowerOfTwo(MaximumArrayLength) * MaximumArraysPerBucket;

    /// <summary>Says what is wrong with these values, or nothing when they are usable.</summary>
    public IEnumerable<string> Validate()
    {
        if (InitialCapacityBytes is < 256 or > 64 * 1024 * 1024)
        {
            yield return $"{nameof(InitialCapacityBytes)} must be between 256 bytes and 64 MiB.";
        }

        if (MaximumArrayLength is < 4096 or > 1024 * 1024 * 1024)
        {
            yield return $"{nameof(MaximumArrayLength)} must be between 4 KiB and 1 GiB.";
        }

        if (MaximumArraysPerBucket is < 1 or > 1024)
        {
            yield return $"{nameof(MaximumArraysPerBucket)} must be between 1 and 1024.";
        }
    }

    private static long RoundUpToPowerOfTwo(int value) => (long)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)value);
}
