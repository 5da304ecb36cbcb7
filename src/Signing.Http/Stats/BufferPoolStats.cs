namespace Signing.Http.Stats;

/// <summary>
/// The buffer pool behind the pooled strategies and request bodies, which stands in for RecyclableMemoryStream's
/// pool (see the README).
/// </summary>
/// <remarks>
/// RecyclableMemoryStream reports its free bytes; this pool cannot. Its free lists are those of
/// <see cref="System.Buffers.ArrayPool{T}.Create(int,int)"/>, which do not say what they hold, and counting returns
/// would be wrong because the pool silently drops a buffer returned to a full list. So the snapshot gives the bytes in
/// use, which are counted exactly, and the bound the free lists cannot exceed.
/// </remarks>
/// <param name="InUseBytes">Bytes rented and not yet returned: zero whenever no request is in flight, so anything else at rest is a leak.</param>
/// <param name="MaximumFreeBytes">The most the free lists can hold, from the configured sizes (<see cref="PooledBufferOptions.MaximumFreeBytes"/>).</param>
/// <param name="MaximumArrayLength">The largest buffer the pool keeps; larger ones are allocated and dropped as plain arrays.</param>
/// <param name="MaximumArraysPerBucket">Free buffers kept per size.</param>
public sealed record BufferPoolStats(long InUseBytes, long MaximumFreeBytes, int MaximumArrayLength, int MaximumArraysPerBucket);
