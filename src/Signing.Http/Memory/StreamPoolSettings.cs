using Microsoft.IO;

namespace Signing.Http.Memory;

/// <summary>
/// The service's defaults for <see cref="RecyclableMemoryStreamManager.Options"/> (configuration section
/// <c>Signing:RecyclableMemoryStream</c>), and the rules a configured value must meet before the manager is made.
/// </summary>
/// <remarks>
/// The settings are the library's own, bound as they are: only the defaults and the checks live here. Figures behind
/// the defaults are in docs/benchmarks.md and docs/load-test.md.
/// </remarks>
public static class StreamPoolSettings
{
    /// <summary>The configuration section, under <see cref="SigningOptions.SectionName"/>.</summary>
    public const string SectionName = SigningOptions.SectionName + ":RecyclableMemoryStream";

    /// <summary>
    /// How much larger than its body a canonical document can be. Input may carry U+0085 raw (2 bytes) where the
    /// canonical form escapes it as <c>\u0085</c> (6 bytes); nothing else grows more.
    /// </summary>
    public const int CanonicalExpansion = 3;

    /// <summary>
    /// The defaults for a server. Blocks of the library's 128 KiB: a request body and a document are written in
    /// blocks and hashed or parsed where they lie, so the block size only sets the rounding. The free small pool keeps
    /// up to 128 MiB of blocks. Measured on a fresh SigningServer (<c>blocksCreated</c> in <c>/api/stats</c> after one
    /// <c>recyclable</c> request): a 3,000-widget request takes 9 blocks (1.1 MiB), a 30,000-widget one 83 (10.4 MiB),
    /// because its body's blocks go back to the pool once parsed, before its document takes them. So a warm server
    /// reuses blocks for about a hundred typical requests in flight, or a dozen of the largest, and gives back
    /// anything past 128 MiB. Nothing in the service asks for a contiguous buffer (<c>GetBuffer</c>,
    /// <c>ToArray</c>), so the large pool stays empty; its bounds are small so that a future caller cannot hoard.
    /// </summary>
    public static RecyclableMemoryStreamManager.Options DefaultOptions() => new()
    {
        BlockSize = 128 * 1024,
        LargeBufferMultiple = 1024 * 1024,
        MaximumBufferSize = 8 * 1024 * 1024,
        UseExponentialLargeBuffer = false,
        MaximumSmallPoolFreeBytes = 128L * 1024 * 1024,
        MaximumLargePoolFreeBytes = 8L * 1024 * 1024,
        // A pooled document copied into one array would undo the pool; fail loudly instead.
        ThrowExceptionOnToArray = true,
    };

    /// <summary>
    /// The most a stream may hold, from the body limit: a body is refused past <paramref name="maxRequestBodyBytes"/>,
    /// and its canonical document can be <see cref="CanonicalExpansion"/> times longer, so no valid request ever
    /// reaches the capacity (which would be an exception, and a 500, inside the library). Rounded up to whole blocks
    /// of <paramref name="blockSize"/>, because a stream grows a block at a time and its first block is a whole one.
    /// </summary>
    public static long MaximumStreamCapacity(long maxRequestBodyBytes, int blockSize) =>
        (CanonicalExpansion * maxRequestBodyBytes + blockSize - 1) / blockSize * blockSize;

    /// <summary>Says what is wrong with <paramref name="options"/>, naming each setting, or nothing when the manager can be made.</summary>
    public static IEnumerable<string> Validate(RecyclableMemoryStreamManager.Options options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.BlockSize is < 1024 or > 16 * 1024 * 1024)
        {
            yield return $"{SectionName}:BlockSize must be between 1 KiB and 16 MiB.";
        }

        if (options.LargeBufferMultiple <= 0)
        {
            yield return $"{SectionName}:LargeBufferMultiple must be positive.";
        }
        else if (options.MaximumBufferSize < options.BlockSize || !IsLargeBufferSize(options, options.MaximumBufferSize))
        {
            yield return options.UseExponentialLargeBuffer
                ? $"{SectionName}:MaximumBufferSize must be at least BlockSize and LargeBufferMultiple times a power of two."
                : $"{SectionName}:MaximumBufferSize must be at least BlockSize and a multiple of LargeBufferMultiple.";
        }

        // The library reads zero as "no bound", and an unbounded free pool cannot be told apart from a leak.
        if (options.MaximumSmallPoolFreeBytes <= 0)
        {
            yield return $"{SectionName}:MaximumSmallPoolFreeBytes must be positive: zero would let the free blocks grow without bound.";
        }

        if (options.MaximumLargePoolFreeBytes <= 0)
        {
            yield return $"{SectionName}:MaximumLargePoolFreeBytes must be positive: zero would let the free buffers grow without bound.";
        }
    }

    private static bool IsLargeBufferSize(RecyclableMemoryStreamManager.Options options, long size)
    {
        if (size % options.LargeBufferMultiple != 0)
        {
            return false;
        }

        var multiples = size / options.LargeBufferMultiple;
        return !options.UseExponentialLargeBuffer || long.IsPow2(multiples);
    }
}
