using System.Buffers;

namespace Signing;

/// <summary>
/// A write position in the span an <see cref="IBufferWriter{T}"/> lent out. Small writes go straight into that span
/// and the writer is only called when the span runs out, so the cost of the interface is paid once per chunk, not
/// once per token.
/// </summary>
internal ref struct BufferCursor(IBufferWriter<byte> output)
{
    // What to ask for when the span runs out: enough for several widgets, so chunks stay few whatever the writer.
    private const int ChunkHint = 4096;

    private Span<byte> _span;
    private int _position;
    private long _committed;

    /// <summary>Bytes written so far, committed or not.</summary>
    public readonly long Total => _committed + _position;

    /// <summary>
    /// The free part of the current span, at least <paramref name="minimumLength"/> bytes long (a new span when the
    /// current one has less). Write into it, then call <see cref="Advance"/>.
    /// </summary>
    public Span<byte> Reserve(int minimumLength)
    {
        if (_span.Length - _position < minimumLength)
        {
            Renew(minimumLength);
        }

        return _span[_position..];
    }

    /// <summary>Counts <paramref name="count"/> bytes written into the span <see cref="Reserve"/> returned.</summary>
    public void Advance(int count) => _position += count;

    /// <summary>Writes a short run of bytes, such as a property name.</summary>
    public void Write(scoped ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(Reserve(bytes.Length));
        _position += bytes.Length;
    }

    /// <summary>
    /// Writes a run of any length, such as a long string value, in as many pieces as the output's spans take: unlike
    /// <see cref="Write(ReadOnlySpan{byte})"/>, it never asks the output for more than a chunk at a time.
    /// </summary>
    public void WriteAll(scoped ReadOnlySpan<byte> bytes)
    {
        while (!bytes.IsEmpty)
        {
            var span = Reserve(1);
            var count = Math.Min(span.Length, bytes.Length);
            bytes[..count].CopyTo(span);
            _position += count;
            bytes = bytes[count..];
        }
    }

    /// <summary>Writes one byte, such as a quote or a comma.</summary>
    public void Write(byte value)
    {
        Reserve(1)[0] = value;
        _position++;
    }

    /// <summary>Hands what has been written to the output; the cursor must not be used after this.</summary>
    public void Commit()
    {
        output.Advance(_position);
        _committed += _position;
        _position = 0;
        _span = default;
    }

    private void Renew(int minimumLength)
    {
        Commit();
        _span = output.GetSpan(Math.Max(minimumLength, ChunkHint));
    }
}
