using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.InteropServices;

namespace Signing.Http.Memory;

/// <summary>
/// The socket transport's memory: blocks of <see cref="BlockSize"/> instead of Kestrel's 4 KiB, so that a connection
/// receives up to 16 KiB a system call and hands the endpoint a body in segments that size.
/// </summary>
/// <remarks>
/// <para>
/// Kestrel receives into one block per call, so its 4 KiB blocks cost a 1.08 MB body 265 receives; in 16 KiB blocks it
/// takes about 70. SigningServer's <c>transcode</c> then served a median of 1.07 times the requests per second it
/// served on Kestrel's blocks, at 270 µs of kernel time a request instead of 438 (3,000 widgets, 8 connections, ten
/// alternating rounds; 1.07 at 30,000 widgets too), and the wire floor, which takes the same blocks, gained alike
/// (docs/floor-history.md, "Receive blocks of 16 KiB").
/// </para>
/// <para>
/// Blocks are pinned, as Kestrel's are, so that a receive does not pin its buffer each time, and reused without being
/// cleared, as Kestrel's are: a pipe hands out only what was received into a block. The pool keeps at most
/// <see cref="MaxKeptBlocks"/> for reuse and leaves the rest to the collector, so that a burst of connections does not
/// leave its peak behind.
/// </para>
/// </remarks>
internal sealed class ReceiveBlockPool : MemoryPool<byte>
{
    /// <summary>The size of every block: what one receive fills at most.</summary>
    public const int BlockSize = 16 * 1024;

    /// <summary>
    /// The most blocks kept for reuse (16 MiB): a few per connection in flight under load. Blocks given back beyond it are
    /// dropped.
    /// </summary>
    public const int MaxKeptBlocks = 1024;

    private readonly ConcurrentQueue<Block> _kept = new();
    private int _keptCount;

    /// <inheritdoc/>
    public override int MaxBufferSize => BlockSize;

    /// <summary>A block of <see cref="BlockSize"/> bytes, whatever size is asked for up to it.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="minBufferSize"/> is more than a block.</exception>
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, BlockSize);
        if (_kept.TryDequeue(out var block))
        {
            Interlocked.Decrement(ref _keptCount);
            return block;
        }

        return new Block(this);
    }

    /// <inheritdoc/>
    protected override void Dispose(bool disposing) => _kept.Clear();

    // Counted before it is queued, so that givers racing past the cap keep no more than it between them.
    private void Keep(Block block)
    {
        if (Interlocked.Increment(ref _keptCount) <= MaxKeptBlocks)
        {
            _kept.Enqueue(block);
        }
        else
        {
            Interlocked.Decrement(ref _keptCount);
        }
    }

    // One pinned block, which goes back to its pool when the pipe is done with it.
    private sealed class Block(ReceiveBlockPool pool) : IMemoryOwner<byte>
    {
        public Memory<byte> Memory { get; } =
            MemoryMarshal.CreateFromPinnedArray(GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true), 0, BlockSize);

        public void Dispose() => pool.Keep(this);
    }
}
