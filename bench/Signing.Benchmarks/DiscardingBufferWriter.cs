using System.Buffers;
using Signing.Strategies;

namespace Signing.Benchmarks;

/// <summary>
/// An output that throws its bytes away, lending the same fixed buffer over and over: what is left of a sign once
/// the hashing is taken out, for the serialize-only floor.
/// </summary>
public sealed class DiscardingBufferWriter : IBufferWriter<byte>
{
    private readonly byte[] _buffer = new byte[Utf8Signer.ChunkBytes];

    /// <inheritdoc/>
    public void Advance(int count)
    {
        // The bytes are not kept, so there is nothing to move past.
    }

    /// <inheritdoc/>
    public Memory<byte> GetMemory(int sizeHint = 0) => _buffer;

    /// <inheritdoc/>
    public Span<byte> GetSpan(int sizeHint = 0) => _buffer;
}
