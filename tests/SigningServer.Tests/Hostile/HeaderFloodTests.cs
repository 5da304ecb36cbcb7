using System.Net.Sockets;
using System.Text;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// What SigningServer's Kestrel does with a client that never finishes its headers (Slowloris), and with one that sends
/// more headers than a sign request needs, on the real server.
/// </summary>
public sealed class HeaderFloodTests(KestrelLimitsServerFactory factory) : IClassFixture<KestrelLimitsServerFactory>
{
    [Fact]
    public async Task Headers_trickling_past_the_timeout_are_cut_off_with_408_and_the_server_still_signs()
    {
        using var client = factory.CreateClient();
        using var tcp = await ConnectAsync(client.BaseAddress!);
        var stream = tcp.GetStream();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await stream.WriteAsync(Encoding.ASCII.GetBytes($"POST /api/sign HTTP/1.1\r\nHost: {client.BaseAddress!.Authority}\r\n"), timeout.Token);
        var started = DateTime.UtcNow;

        // A header line every 500 ms, never the blank line that ends them: twice what keeps a per-read timeout alive.
        var buffer = new byte[4096];
        var reading = stream.ReadAsync(buffer, timeout.Token).AsTask();
        var line = 0;
        try
        {
            while (!reading.IsCompleted && DateTime.UtcNow - started < TimeSpan.FromSeconds(20))
            {
                await stream.WriteAsync(Encoding.ASCII.GetBytes($"X-Trickle-{line++}: {line}\r\n"), timeout.Token);
                await Task.WhenAny(reading, Task.Delay(500, timeout.Token));
            }
        }
        catch (IOException)
        {
            // Closed while we were still sending: the cut-off we wait for.
        }

        var elapsed = DateTime.UtcNow - started;
        var answer = await ReadAnswerAsync(reading, buffer);

        // Kestrel checks its timeouts once a second, against a deadline of the last check's time plus the timeout plus
        // one more second: so it cuts off up to two seconds late, and a busy machine may add to that before either side
        // runs. Well before the trickle's 20 s and the keep-alive timeout's 30 s, so only the headers' timeout fits.
        Assert.True(elapsed >= SigningKestrelLimits.RequestHeadersTimeout - TimeSpan.FromSeconds(1), $"cut off already after {elapsed}");
        Assert.True(elapsed < SigningKestrelLimits.RequestHeadersTimeout + TimeSpan.FromSeconds(4), $"cut off only after {elapsed}");
        Assert.True(answer.Length == 0 || answer.StartsWith("HTTP/1.1 408 ", StringComparison.Ordinal), answer);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Headers_past_8_KiB_are_refused_with_431()
    {
        using var client = factory.CreateClient();
        using var tcp = await ConnectAsync(client.BaseAddress!);
        var stream = tcp.GetStream();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var padding = new string('a', SigningKestrelLimits.MaxRequestHeadersTotalSize);
        await stream.WriteAsync(Encoding.ASCII.GetBytes($"POST /api/sign HTTP/1.1\r\nHost: {client.BaseAddress!.Authority}\r\nX-Padding: {padding}\r\n\r\n"), timeout.Token);

        var buffer = new byte[4096];
        var answer = await ReadAnswerAsync(stream.ReadAsync(buffer, timeout.Token).AsTask(), buffer);

        Assert.StartsWith("HTTP/1.1 431 ", answer, StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    private static async Task<TcpClient> ConnectAsync(Uri address)
    {
        var tcp = new TcpClient();
        await tcp.ConnectAsync(address.Host, address.Port);
        return tcp;
    }

    // What the server sent before it closed, or nothing when it reset the connection instead.
    private static async Task<string> ReadAnswerAsync(Task<int> reading, byte[] buffer)
    {
        try
        {
            var read = await reading.WaitAsync(TimeSpan.FromSeconds(5));
            return Encoding.ASCII.GetString(buffer, 0, read);
        }
        catch (IOException)
        {
            return string.Empty;
        }
    }
}
