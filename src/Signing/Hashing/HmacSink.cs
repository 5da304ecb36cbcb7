using System.Buffers;
using System.Security.Cryptography;

namespace Signing.Hashing;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> whose bytes go into an HMAC instead of staying: it lends out one fixed buffer and
/// hashes it whenever it fills, so however large the document, only the buffer's worth of it exists at a time.
/// </summary>
internal sealed class HmacSink(IncrementalHash hash, byte[] buffer) : IBufferWriter<byte>
{
    private int _filled;

    /// <inheritdoc/>
    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, buffer.Length - _filled);
        _filled += count;
    }

    /// <inheritdoc/>
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        MakeRoom(sizeHint);
        return buffer.AsMemory(_filled);
    }

    /// <inheritdoc/>
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        MakeRoom(sizeHint);
        return buffer.AsSpan(_filled);
    }

    /// <summary>Hashes what is in the buffer; call it once more after the last write.</summary>
    public void Flush()
    {
        hash.AppendData(buffer, 0, _filled);
        _filled = 0;
    }

    private void MakeRoom(int sizeHint)
    {
        var needed = Math.Max(sizeHint, 1);
        if (buffer.Length - _filled >= needed)
        {
            return;
        }

        ArgumentOutOfRangeException.ThrowIfGreaterThan(needed, buffer.Length, nameof(sizeHint));
        Flush();
    }
}
