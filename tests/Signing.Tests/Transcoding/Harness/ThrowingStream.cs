namespace Signing.Tests.Transcoding.Harness;

/// <summary>A body whose connection fails after <paramref name="prefix"/>: every read past it throws <paramref name="failure"/>.</summary>
internal sealed class ThrowingStream(byte[] prefix, Exception failure) : Stream
{
    private int _position;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => _position;
        set => throw new NotSupportedException();
    }

    public override int Read(byte[] buffer, int offset, int count)
    {
        if (_position == prefix.Length)
        {
            throw failure;
        }

        var read = Math.Min(count, Math.Min(4096, prefix.Length - _position));
        prefix.AsSpan(_position, read).CopyTo(buffer.AsSpan(offset));
        _position += read;
        return read;
    }

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
