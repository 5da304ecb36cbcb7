using System.Buffers;
using System.Security.Cryptography;

namespace Signing.Hashing;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> whose bytes go into an HMAC instead of staying: it lends out one fixed buffer and
/// hashes it whenever it fills, so however large the document, only the buffer's worth of it exists at a time.
/// </summary>
/// <remarks>
/// Given several hashes, each full buffer goes to every one of them: one pass over the document signs it with several
/// keys, as a verify during a key rotation needs when the body can only be read once.
/// </remarks>
internal sealed class HmacSink : IBufferWriter<byte>
{
    private readonly IncrementalHash _hash;
    private readonly IncrementalHash[]? _hashes;
    private readonly byte[] _buffer;
    private int _filled;

    /// <summary>A sink that feeds <paramref name="hash"/> through <paramref name="buffer"/>.</summary>
    public HmacSink(IncrementalHash hash, byte[] buffer)
    {
        _hash = hash;
        _buffer = buffer;
    }

    /// <summary>A sink that feeds every one of <paramref name="hashes"/> (at least one) the same bytes.</summary>
    public HmacSink(IncrementalHash[] hashes, byte[] buffer)
    {
        ArgumentOutOfRangeException.ThrowIfZero(hashes.Length);
        _hash = hashes[0];
        // Stryker disable once Conditional,Equality : equivalent, as one hash fed through the loop gets the same bytes; null only skips the loop.
        _hashes = hashes.Length > 1 ? hashes : null;
        _buffer = buffer;
    }

    /// <inheritdoc/>
    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _buffer.Length - _filled);
        _filled += count;
    }

    /// <inheritdoc/>
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        MakeRoom(sizeHint);
        return _buffer.AsMemory(_filled);
    }

    /// <inheritdoc/>
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        MakeRoom(sizeHint);
        return _buffer.AsSpan(_filled);
    }

    /// <summary>Hashes what is in the buffer; call it once more after the last write.</summary>
    public void Flush()
    {
        if (_hashes is null)
        {
            _hash.AppendData(_buffer, 0, _filled);
        }
        else
        {
            foreach (var hash in _hashes)
            {
                hash.AppendData(_buffer, 0, _filled);
            }
        }

        _filled = 0;
    }

    private void MakeRoom(int sizeHint)
    {
        var needed = Math.Max(sizeHint, 1);
        if (_buffer.Length - _filled >= needed)
        {
            return;
        }

        ArgumentOutOfRangeException.ThrowIfGreaterThan(needed, _buffer.Length, nameof(sizeHint));
        Flush();
    }
}
