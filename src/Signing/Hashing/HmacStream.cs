using System.Security.Cryptography;

namespace Signing.Hashing;

/// <summary>
/// A write-only <see cref="Stream"/> that hashes what it is given and keeps nothing, so a serializer writing to it
/// signs a document that never exists in memory. The writer in front of it (a <see cref="StreamWriter"/>) is what
/// batches the bytes into a small fixed buffer.
/// </summary>
internal sealed class HmacStream(IncrementalHash hash) : Stream
{
    /// <summary>How many bytes have been hashed.</summary>
    public long BytesWritten { get; private set; }

    /// <inheritdoc/>
    public override bool CanRead => false;

    /// <inheritdoc/>
    public override bool CanSeek => false;

    /// <inheritdoc/>
    public override bool CanWrite => true;

    /// <inheritdoc/>
    public override long Length => throw new NotSupportedException("The bytes are hashed, not kept.");

    /// <inheritdoc/>
    public override long Position
    {
        get => throw new NotSupportedException("The bytes are hashed, not kept.");
        set => throw new NotSupportedException("The bytes are hashed, not kept.");
    }

    /// <inheritdoc/>
    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    /// <inheritdoc/>
    public override void Write(ReadOnlySpan<byte> buffer)
    {
        hash.AppendData(buffer);
        BytesWritten += buffer.Length;
    }

    /// <inheritdoc/>
    public override void Flush()
    {
        // Nothing is buffered here: every write has been hashed already.
    }

    /// <inheritdoc/>
    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("The stream is write-only.");

    /// <inheritdoc/>
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException("The stream is write-only.");

    /// <inheritdoc/>
    public override void SetLength(long value) => throw new NotSupportedException("The stream is write-only.");
}
