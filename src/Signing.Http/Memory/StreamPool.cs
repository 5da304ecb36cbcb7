using Microsoft.IO;

namespace Signing.Http.Memory;

/// <summary>
/// The process's one <see cref="RecyclableMemoryStreamManager"/>, which every buffer of the service comes from (request
/// bodies and the recyclable strategies' documents), with counts of the library's events that operators watch.
/// </summary>
/// <remarks>
/// One per process: a pool per request pools nothing. The counts come from the manager's own .NET events, as the
/// library publishes them, so <c>GET /api/stats</c> and the <c>Signing</c> meter show what the library saw.
/// </remarks>
public sealed class StreamPool
{
    private long _blocksCreated;
    private long _largeBuffersCreated;
    private long _buffersDiscarded;
    private long _streamsOverCapacity;
    private long _streamsDoubleDisposed;
    private long _streamsFinalized;

    /// <summary>Creates the manager from <paramref name="options"/>, which <see cref="StreamPoolSettings"/> has passed.</summary>
    public StreamPool(RecyclableMemoryStreamManager.Options options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Options = options;
        Manager = new RecyclableMemoryStreamManager(options);
        Manager.BlockCreated += (_, _) => Interlocked.Increment(ref _blocksCreated);
        Manager.LargeBufferCreated += (_, _) => Interlocked.Increment(ref _largeBuffersCreated);
        Manager.BufferDiscarded += (_, _) => Interlocked.Increment(ref _buffersDiscarded);
        Manager.StreamOverCapacity += (_, _) => Interlocked.Increment(ref _streamsOverCapacity);
        Manager.StreamDoubleDisposed += (_, _) => Interlocked.Increment(ref _streamsDoubleDisposed);
        Manager.StreamFinalized += (_, _) => Interlocked.Increment(ref _streamsFinalized);
    }

    /// <summary>The manager the strategies and the request reader take their streams from.</summary>
    public RecyclableMemoryStreamManager Manager { get; }

    /// <summary>The options the manager was made with, for the bounds that stats report beside the readings.</summary>
    public RecyclableMemoryStreamManager.Options Options { get; }

    /// <summary>Bytes held by streams not yet disposed: zero whenever no request is in flight, so anything else at rest is a leak.</summary>
    public long InUseBytes => Manager.SmallPoolInUseSize + Manager.LargePoolInUseSize;

    /// <summary>New blocks made because the free pool had none: steady after warm-up, unless the free bound is too low.</summary>
    public long BlocksCreated => Interlocked.Read(ref _blocksCreated);

    /// <summary>Large (contiguous) buffers made; nothing in the service asks for one, so this stays zero.</summary>
    public long LargeBuffersCreated => Interlocked.Read(ref _largeBuffersCreated);

    /// <summary>Buffers dropped to the garbage collector instead of kept, because the free pool was at its bound or they were too large.</summary>
    public long BuffersDiscarded => Interlocked.Read(ref _buffersDiscarded);

    /// <summary>Streams that asked for more than <c>MaximumStreamCapacity</c>; the body limit keeps this at zero.</summary>
    public long StreamsOverCapacity => Interlocked.Read(ref _streamsOverCapacity);

    /// <summary>Streams disposed twice: a bug in the service if it is ever more than zero.</summary>
    public long StreamsDoubleDisposed => Interlocked.Read(ref _streamsDoubleDisposed);

    /// <summary>Streams the garbage collector finalized because nobody disposed them: their blocks never came back.</summary>
    public long StreamsFinalized => Interlocked.Read(ref _streamsFinalized);
}
