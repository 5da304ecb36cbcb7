using System.Net;
using System.Net.Sockets;
using System.Text;

namespace SigningServer.Tests.Clients;

/// <summary>
/// One TCP connection to a loopback server, for requests no well-behaved HttpClient sends: a Content-Length the body
/// never reaches, a body cut off halfway, a client that resets the connection instead of reading the answer.
/// </summary>
internal sealed class RawHttpConnection : IDisposable
{
    private readonly TcpClient _tcp;
    private readonly NetworkStream _stream;

    private RawHttpConnection(TcpClient tcp)
    {
        _tcp = tcp;
        _stream = tcp.GetStream();
    }

    /// <summary>
    /// Connects to <paramref name="baseAddress"/>'s host and port within 10 s, from <paramref name="from"/> (another
    /// loopback address, for a second client on the same machine) or wherever the system picks.
    /// </summary>
    public static async Task<RawHttpConnection> OpenAsync(Uri baseAddress, IPAddress? from = null)
    {
        ArgumentNullException.ThrowIfNull(baseAddress);
        var tcp = from is null ? new TcpClient() : new TcpClient(new IPEndPoint(from, 0));
        tcp.NoDelay = true;
        try
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            await tcp.ConnectAsync(baseAddress.Host, baseAddress.Port, timeout.Token);
            return new RawHttpConnection(tcp);
        }
        catch
        {
            tcp.Dispose();
            throw;
        }
    }

    /// <summary>
    /// The head of a POST to <paramref name="pathAndQuery"/> with <paramref name="headers"/> (each ending in CRLF), asking
    /// for <c>Connection: close</c> unless <paramref name="keepAlive"/>. A keep-alive request, which is what HTTP clients
    /// send by default, leaves the server reading the connection's next request after it.
    /// </summary>
    public static byte[] PostHead(Uri baseAddress, string pathAndQuery, string headers, bool keepAlive = false)
    {
        ArgumentNullException.ThrowIfNull(baseAddress);
        var connection = keepAlive ? "" : "Connection: close\r\n";
        return Encoding.ASCII.GetBytes(
            $"POST {pathAndQuery} HTTP/1.1\r\nHost: {baseAddress.Authority}\r\n{connection}Content-Type: application/json\r\n{headers}\r\n");
    }

    /// <summary>`body` as chunks of 8 KiB, without the terminating chunk: a chunked upload that stops there.</summary>
    public static byte[] Chunks(ReadOnlySpan<byte> body)
    {
        const int Size = 8 * 1024;
        var chunks = new List<byte>();
        for (var offset = 0; offset < body.Length; offset += Size)
        {
            var piece = body.Slice(offset, Math.Min(Size, body.Length - offset));
            chunks.AddRange(Encoding.ASCII.GetBytes($"{piece.Length:x}\r\n"));
            chunks.AddRange(piece.ToArray());
            chunks.AddRange("\r\n"u8.ToArray());
        }

        return [.. chunks];
    }

    /// <summary>Writes <paramref name="bytes"/> within 30 s.</summary>
    public async Task SendAsync(ReadOnlyMemory<byte> bytes)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await _stream.WriteAsync(bytes, timeout.Token);
        await _stream.FlushAsync(timeout.Token);
    }

    /// <summary>Whether the server has sent anything or closed the connection: whether a read would not wait.</summary>
    public bool HasAnswered => _tcp.Client.Poll(0, SelectMode.SelectRead);

    /// <summary>Stops sending (a FIN) but keeps reading.</summary>
    public void HalfClose() => _tcp.Client.Shutdown(SocketShutdown.Send);

    /// <summary>Goes away at once with a reset (RST), discarding whatever the server sends.</summary>
    public void Abort()
    {
        _tcp.Client.LingerState = new LingerOption(true, 0);
        _tcp.Client.Close();
    }

    /// <summary>
    /// Everything the server sends until it closes the connection, within <paramref name="timeout"/>, with or without a
    /// reset after the answer; empty when the server resets the connection without an answer.
    /// </summary>
    public async Task<string> ReadToEndAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        using var received = new MemoryStream();
        var chunk = new byte[16 * 1024];
        try
        {
            int read;
            while ((read = await _stream.ReadAsync(chunk, cancel.Token)) > 0)
            {
                received.Write(chunk, 0, read);
            }
        }
        catch (IOException)
        {
            // A reset ends the answer; what came before it is the answer.
        }

        return Encoding.UTF8.GetString(received.GetBuffer(), 0, (int)received.Length);
    }

    public void Dispose()
    {
        _stream.Dispose();
        _tcp.Dispose();
    }
}
