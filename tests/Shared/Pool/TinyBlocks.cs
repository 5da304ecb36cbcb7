using Microsoft.IO;

namespace Signing.Tests.Pool;

/// <summary>
/// A pool of 16-byte blocks, for the tests that parse bodies from the pool's blocks: a block boundary falls inside
/// nearly every token, so any body longer than a block takes the multi-block path.
/// </summary>
internal static class TinyBlocks
{
    /// <summary>The pool, shared by the tests that use it as the server shares its one pool.</summary>
    public static RecyclableMemoryStreamManager Manager { get; } = new(new RecyclableMemoryStreamManager.Options
    {
        BlockSize = 16,
        LargeBufferMultiple = 1024,
        MaximumBufferSize = 1024,
        MaximumSmallPoolFreeBytes = 1024 * 1024,
        MaximumLargePoolFreeBytes = 1024,
    });
}
