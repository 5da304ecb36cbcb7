using System.Net.Sockets;
using System.Text;
using Microsoft.IO;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// Requests no well-behaved HttpClient sends, written byte by byte to real Kestrel: broken chunked framing, and a
/// client that gives up halfway through its body. Neither may cost a 500 or a pooled buffer.
/// </summary>
public sealed class KestrelMalformedHttpTests(KestrelSigningServerFactory factory) : IClassFixture<KestrelSigningServerFactory>
{
    [Fact]
    public async Task Client_that_stops_sending_before_its_content_length_costs_no_buffer()
    {
        // The connection closes without waiting for the request to unwind, or even to start reading its body: on a busy
        // machine the pool could show nothing in use before the request had taken its stream. So the streams the
        // request takes are counted, and the test waits until every one of them has gone back.
        var created = 0;
        var disposed = 0;
        void Created(object? sender, RecyclableMemoryStreamManager.StreamCreatedEventArgs e) => Interlocked.Increment(ref created);
        void Disposed(object? sender, RecyclableMemoryStreamManager.StreamDisposedEventArgs e) => Interlocked.Increment(ref disposed);
        factory.Pool.Manager.StreamCreated += Created;
        factory.Pool.Manager.StreamDisposed += Disposed;
        string response;
        try
        {
            response = await SendRawAsync(
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"widgets\":[",
                closeSending: true);

            for (var wait = 0; wait < 100 && (Volatile.Read(ref created) == 0 || Volatile.Read(ref disposed) < Volatile.Read(ref created)); wait++)
            {
                await Task.Delay(50);
            }
        }
        finally
        {
            factory.Pool.Manager.StreamCreated -= Created;
            factory.Pool.Manager.StreamDisposed -= Disposed;
        }

        // Every stream the request took went back, within the wait.
        Assert.Equal(Volatile.Read(ref created), Volatile.Read(ref disposed));

        // Kestrel takes the half-close as the client going away, so usually there is no answer at all (or a reset);
        // if there is one, it is a 400.
        Assert.True(response.Length == 0 || response.StartsWith("HTTP/1.1 400 ", StringComparison.Ordinal), response);

        await AssertStillSigningAsync();
    }

    [Theory]
    [InlineData("not-hex")]
    [InlineData("80000000")]
    [InlineData("100000000")]
    [InlineData("FFFFFFFFFFFFFFFFF")]
    public async Task Broken_chunked_framing_is_a_400_problem(string secondChunkSize)
    {
        // A size over int.MaxValue reaches the endpoint as a bare IOException over an overflow, not as Kestrel's usual
        // BadHttpRequestException; it was taken for a client gone, and the connection reset without an answer.
        var response = await SendRawAsync(
            $"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{{\"wid\r\n{secondChunkSize}\r\n",
            closeSending: false);

        Assert.StartsWith("HTTP/1.1 400 ", response, StringComparison.Ordinal);
        Assert.Contains("Content-Type: application/problem+json", response, StringComparison.Ordinal);
        await AssertStillSigningAsync();
    }

    private async Task AssertStillSigningAsync()
    {
        using var client = factory.CreateClient();
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    // Sends a POST with the given headers and body text on a new connection and returns everything the server
    // answers until it closes the connection.
    private async Task<string> SendRawAsync(string headersAndBody, bool closeSending)
    {
        using var client = factory.CreateClient();
        var address = client.BaseAddress!;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(address.Host, address.Port, timeout.Token);
        var stream = tcp.GetStream();

        var request = $"POST /api/sign HTTP/1.1\r\nHost: {address.Authority}\r\nConnection: close\r\n{headersAndBody}";
        await stream.WriteAsync(Encoding.ASCII.GetBytes(request), timeout.Token);
        if (closeSending)
        {
            tcp.Client.Shutdown(SocketShutdown.Send);
        }

        using var reader = new StreamReader(stream, Encoding.UTF8);
        try
        {
            return await reader.ReadToEndAsync(timeout.Token);
        }
        catch (IOException) when (closeSending)
        {
            // The server reset a connection whose client had already stopped sending: no answer, as the caller expects.
            return "";
        }
    }
}
