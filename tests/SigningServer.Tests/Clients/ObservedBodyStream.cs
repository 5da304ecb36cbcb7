namespace SigningServer.Tests.Clients;

/// <summary>
/// A request body for direct invocation that records how the endpoint reads it: how many reads were asked of it and
/// how many bytes they took, and, when asked, runs an action as it reports the end of the body (the moment the read is
/// over and before anything else happens), so a test can act between reading and what follows.
/// </summary>
internal sealed class ObservedBodyStream(byte[] body, Action? atEnd = null) : Stream
{
    private int _position;

    /// <summary>Reads asked of the stream, including the one that found the end.</summary>
    public int Reads { get; private set; }

    /// <summary>Bytes handed out so far.</summary>
    public int BytesRead => _position;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => _position;
        set => throw new NotSupportedException();
    }

    // The token is ignored on purpose: the body is all there, so a read never waits, and a test that cancels in atEnd
    // must see what the endpoint does after the read, not a read that throws.
    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult(Read(buffer.Span));

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Task.FromResult(Read(buffer.AsSpan(offset, count)));

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        Reads++;
        var count = Math.Min(buffer.Length, body.Length - _position);
        body.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        if (count == 0 && buffer.Length > 0)
        {
            atEnd?.Invoke();
        }

        return count;
    }

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
