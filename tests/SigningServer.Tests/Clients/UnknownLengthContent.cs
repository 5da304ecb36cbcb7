using System.Net;
using System.Net.Http.Headers;

namespace SigningServer.Tests.Clients;

/// <summary>
/// <c>application/json</c> content whose length is not known up front, so the client sends it without a
/// Content-Length header and only the reading of the body can find it too large.
/// </summary>
internal sealed class UnknownLengthContent : HttpContent
{
    private readonly byte[] _body;

    public UnknownLengthContent(byte[] body)
    {
        _body = body;
        Headers.ContentType = new MediaTypeHeaderValue("application/json");
    }

    /// <summary>
    /// A POST of <paramref name="body"/> with chunked transfer encoding and no Content-Length. Marking it chunked also
    /// stops TestServer from buffering the content to learn its length.
    /// </summary>
    public static HttpRequestMessage ChunkedPost(string uri, byte[] body)
    {
        var request = new HttpRequestMessage(HttpMethod.Post, uri) { Content = new UnknownLengthContent(body) };
        request.Headers.TransferEncodingChunked = true;
        return request;
    }

    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
    {
        // Several writes, so a server that reads as it goes sees the body arrive in pieces.
        const int Piece = 1024;
        for (var offset = 0; offset < _body.Length; offset += Piece)
        {
            await stream.WriteAsync(_body.AsMemory(offset, Math.Min(Piece, _body.Length - offset)));
        }
    }

    protected override bool TryComputeLength(out long length)
    {
        length = 0;
        return false;
    }
}
