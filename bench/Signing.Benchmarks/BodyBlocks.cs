using System.Buffers;

namespace Signing.Benchmarks;

/// <summary>A body as a chain of blocks over its own array, the shape in which Kestrel hands over what has arrived.</summary>
internal sealed class BodyBlocks : ReadOnlySequenceSegment<byte>
{
    private BodyBlocks(ReadOnlyMemory<byte> memory, long runningIndex)
    {
        Memory = memory;
        RunningIndex = runningIndex;
    }

    /// <summary><paramref name="body"/> in blocks of <paramref name="blockSize"/> bytes (the last one shorter).</summary>
    public static ReadOnlySequence<byte> Of(byte[] body, int blockSize)
    {
        var first = new BodyBlocks(body.AsMemory(0, Math.Min(blockSize, body.Length)), 0);
        var last = first;
        for (var at = blockSize; at < body.Length; at += blockSize)
        {
            var next = new BodyBlocks(body.AsMemory(at, Math.Min(blockSize, body.Length - at)), at);
            last.Next = next;
            last = next;
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }
}
