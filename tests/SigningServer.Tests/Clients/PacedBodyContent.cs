using System.Net;

namespace SigningServer.Tests.Clients;

/// <summary>
/// A request body sent <c>pieceBytes</c> at a time, one piece every <c>interval</c>: an honest upload over a slow link,
/// still arriving for as long as a test needs. Declares its length.
/// </summary>
internal sealed class PacedBodyContent : HttpContent
{
    private readonly byte[] _body;
    private readonly int _pieceBytes;
    private readonly TimeSpan _interval;

    public PacedBodyContent(byte[] body, int pieceBytes, TimeSpan interval)
    {
        _body = body;
        _pieceBytes = pieceBytes;
        _interval = interval;
        Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json");
    }

    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
    {
        for (var offset = 0; offset < _body.Length; offset += _pieceBytes)
        {
            await stream.WriteAsync(_body.AsMemory(offset, Math.Min(_pieceBytes, _body.Length - offset)));
            await stream.FlushAsync();
            await Task.Delay(_interval);
        }
    }

    protected override bool TryComputeLength(out long length)
    {
        length = _body.Length;
        return true;
    }
}
