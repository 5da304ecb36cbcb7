using System.Net;

namespace SigningServer.Tests.Clients;

/// <summary>
/// A request body that sends its first <c>headBytes</c> and then waits for <see cref="Release"/> before sending the
/// rest: a request held in flight for as long as a test needs, as a slow upload would be. Declares its length unless
/// told not to, in which case it goes chunked.
/// </summary>
internal sealed class HeldBodyContent : HttpContent
{
    private readonly byte[] _body;
    private readonly int _headBytes;
    private readonly bool _declareLength;
    private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public HeldBodyContent(byte[] body, int headBytes, bool declareLength = true)
    {
        _body = body;
        _headBytes = headBytes;
        _declareLength = declareLength;
        Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json");
    }

    /// <summary>Lets the rest of the body go.</summary>
    public void Release() => _released.TrySetResult();

    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
    {
        await stream.WriteAsync(_body.AsMemory(0, _headBytes));
        await stream.FlushAsync();
        await _released.Task.WaitAsync(TimeSpan.FromSeconds(60));
        await stream.WriteAsync(_body.AsMemory(_headBytes));
    }

    protected override bool TryComputeLength(out long length)
    {
        length = _body.Length;
        return _declareLength;
    }
}
