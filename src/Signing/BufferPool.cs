using System.Buffers;
using CommunityToolkit.HighPerformance.Buffers;

namespace Signing;

/// <summary>
/// The process-wide pool behind the <c>pooled</c> strategy: bounded free lists (from <see cref="ArrayPool{T}.Create(int,int)"/>)
/// plus a count of the bytes currently rented, which is what tells a leak from a busy server.
/// </summary>
/// <remarks>
/// This plays the part of <c>RecyclableMemoryStreamManager</c>, which our NuGet mirror does not carry. Create one per
/// process: a pool per request pools nothing.
/// </remarks>
public sealed class BufferPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _buckets;
    private long _inUseBytes;

    /// <summary>Creates the pool; <paramref name="options"/> must already be valid.</summary>
    public BufferPool(PooledBufferOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Options = options;
        _buckets = Create(options.MaximumArrayLength, options.MaximumArraysPerBucket);
    }

    /// <summary>The sizes this pool was made with.</summary>
    public PooledBufferOptions Options { get; }

    /// <summary>Bytes rented and not yet returned; zero whenever no sign is in flight.</summary>
    public long InUseBytes => Interlocked.Read(ref _inUseBytes);

    /// <summary>A growable buffer whose arrays come from this pool; dispose it to give them back.</summary>
    public ArrayPoolBufferWriter<byte> RentWriter() => new(this, Options.InitialCapacityBytes);

    /// <inheritdoc/>
    public override byte[] Rent(int minimumLength)
    {
        var array = _buckets.Rent(minimumLength);
        Interlocked.Add(ref _inUseBytes, array.Length);
        return array;
    }

    /// <inheritdoc/>
    public override void Return(byte[] array, bool clearArray = false)
    {
        ArgumentNullException.ThrowIfNull(array);
        Interlocked.Add(ref _inUseBytes, -array.Length);
        _buckets.Return(array, clearArray);
    }
}
