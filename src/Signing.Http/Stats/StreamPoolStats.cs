namespace Signing.Http.Stats;

/// <summary>
/// The RecyclableMemoryStream pool that every buffer of the service comes from, as the library reports it: bytes in
/// use and free in each of its two pools, the bounds of the free pools, and counts of its events.
/// </summary>
/// <param name="SmallPoolInUseBytes">Blocks held by streams not yet disposed: zero whenever no request is in flight, so anything else at rest is a leak.</param>
/// <param name="SmallPoolFreeBytes">Blocks kept for reuse.</param>
/// <param name="MaximumSmallPoolFreeBytes">The most the free blocks may hold; blocks returned past it are dropped.</param>
/// <param name="LargePoolInUseBytes">Contiguous buffers held by streams (none: the service never asks for one).</param>
/// <param name="LargePoolFreeBytes">Contiguous buffers kept for reuse.</param>
/// <param name="MaximumLargePoolFreeBytes">The most the free contiguous buffers may hold.</param>
/// <param name="BlockSize">The size of one block, which every stream's size is rounded up to.</param>
/// <param name="BlocksCreated">Blocks made because none was free: flat once warm, unless the free bound is too low for the load.</param>
/// <param name="LargeBuffersCreated">Contiguous buffers made.</param>
/// <param name="BuffersDiscarded">Blocks or buffers given to the garbage collector instead of kept, because the free pool was full.</param>
/// <param name="StreamsOverCapacity">Streams that asked for more than their maximum capacity.</param>
/// <param name="StreamsDoubleDisposed">Streams disposed twice (a bug if ever above zero).</param>
/// <param name="StreamsFinalized">Streams never disposed, whose blocks were lost to the pool (a leak if ever above zero).</param>
public sealed record StreamPoolStats(
    long SmallPoolInUseBytes,
    long SmallPoolFreeBytes,
    long MaximumSmallPoolFreeBytes,
    long LargePoolInUseBytes,
    long LargePoolFreeBytes,
    long MaximumLargePoolFreeBytes,
    int BlockSize,
    long BlocksCreated,
    long LargeBuffersCreated,
    long BuffersDiscarded,
    long StreamsOverCapacity,
    long StreamsDoubleDisposed,
    long StreamsFinalized);
