namespace SigningServer.Tests.Clients;

/// <summary>
/// A request body for direct invocation whose first read fails the way a transport or a broken stream can: by never
/// answering until the request is cancelled (<see cref="Silent"/>), or by throwing the exception given.
/// </summary>
internal sealed class FailingBodyStream : Stream
{
    private readonly Exception? _failure;

    private FailingBodyStream(Exception? failure) => _failure = failure;

    /// <summary>A client that sent its headers and then nothing.</summary>
    public static FailingBodyStream Silent() => new(null);

    /// <summary>A body whose every read throws <paramref name="failure"/>.</summary>
    public static FailingBodyStream Throwing(Exception failure) => new(failure);

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => 0;
        set => throw new NotSupportedException();
    }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (_failure is not null)
        {
            throw _failure;
        }

        await Task.Delay(Timeout.Infinite, cancellationToken);
        return 0;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
