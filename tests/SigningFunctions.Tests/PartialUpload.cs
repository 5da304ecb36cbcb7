using System.Globalization;
using System.Net.Sockets;
using System.Text;

namespace SigningFunctions.Tests;

/// <summary>
/// A request sent over a raw socket with its whole length declared but only part of its body, so a test can hold it
/// in flight (or let it stall) and later send the rest and read the answer as the client sees it.
/// </summary>
internal sealed class PartialUpload : IDisposable
{
    private readonly TcpClient _socket;
    private readonly NetworkStream _stream;
    private readonly byte[] _body;
    private readonly int _sent;

    private PartialUpload(TcpClient socket, byte[] body, int sent)
    {
        _socket = socket;
        _stream = socket.GetStream();
        _body = body;
        _sent = sent;
    }

    /// <summary>Sends the head and the first <paramref name="sent"/> bytes of <paramref name="body"/> to <paramref name="path"/>.</summary>
    public static async Task<PartialUpload> StartAsync(Uri baseAddress, string path, byte[] body, int sent)
    {
        var socket = new TcpClient();
        await socket.ConnectAsync(baseAddress.Host, baseAddress.Port);
        var upload = new PartialUpload(socket, body, sent);
        var head = $"POST {path} HTTP/1.1\r\nHost: {baseAddress.Authority}\r\nContent-Type: application/json\r\n" +
            $"Content-Length: {body.Length.ToString(CultureInfo.InvariantCulture)}\r\nConnection: close\r\n\r\n";
        await upload._stream.WriteAsync(Encoding.ASCII.GetBytes(head));
        await upload._stream.WriteAsync(body.AsMemory(0, sent));
        return upload;
    }

    /// <summary>Sends the rest of the body and returns the whole answer (head and body) as text.</summary>
    public async Task<string> FinishAsync()
    {
        await _stream.WriteAsync(_body.AsMemory(_sent));
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        using var reader = new StreamReader(_stream, Encoding.UTF8, leaveOpen: true);
        return await reader.ReadToEndAsync(timeout.Token);
    }

    /// <summary>Goes away without the rest of the body: a reset when <paramref name="reset"/>, otherwise a close.</summary>
    public void Close(bool reset)
    {
        if (reset)
        {
            _socket.Client.LingerState = new LingerOption(true, 0);
        }

        _socket.Client.Close();
    }

    public void Dispose() => _socket.Dispose();
}
