namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// A body that arrives in pieces of random size, from 1 byte to 64 KiB, so that read boundaries fall everywhere:
/// inside names, strings, escapes, numbers, literals and multi-byte characters. The same seed gives the same pieces.
/// </summary>
internal sealed class SegmentedStream(byte[] body, int seed) : Stream
{
    /// <summary>The largest piece one read returns.</summary>
    public const int MaxPiece = 64 * 1024;

#pragma warning disable CA5394 // Not for security: the pieces must be reproducible.
    private readonly Random _random = new(seed);
#pragma warning restore CA5394
    private int _position;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => body.Length;

    public override long Position
    {
        get => _position;
        set => throw new NotSupportedException();
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
#pragma warning disable CA5394 // Not for security: see _random.
        // A quarter of reads return one byte, the rest a size from a small, medium or large range.
        var piece = _random.Next(4) switch
        {
            0 => 1,
            1 => _random.Next(1, 17),
            2 => _random.Next(1, 512),
            _ => _random.Next(1, MaxPiece + 1),
        };
#pragma warning restore CA5394
        var count = Math.Min(Math.Min(piece, buffer.Length), body.Length - _position);
        body.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        return count;
    }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult(Read(buffer.Span));

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Task.FromResult(Read(buffer, offset, count));

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
