using System.Net.Sockets;
using System.Text;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// The Kestrel limits that bound slow clients are set on the real server, and a body that trickles in below the
/// service's minimum rate (though above Kestrel's default of 240 B/s) is cut off instead of holding its connection and
/// buffer.
/// </summary>
public sealed class KestrelLimitsTests(KestrelLimitsServerFactory factory) : IClassFixture<KestrelLimitsServerFactory>
{
    private static readonly byte[] Spaces = Enumerable.Repeat((byte)' ', 1024).ToArray();

    [Fact]
    public void Server_has_every_limit_from_one_place()
    {
        factory.StartServer();
        var limits = factory.Services.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits;

        Assert.Equal(KestrelLimitsServerFactory.Limit, limits.MaxRequestBodySize);
        Assert.Equal(16 * 1024, limits.MinRequestBodyDataRate!.BytesPerSecond);
        Assert.Equal(TimeSpan.FromSeconds(5), limits.MinRequestBodyDataRate.GracePeriod);
        Assert.Equal(TimeSpan.FromSeconds(5), limits.RequestHeadersTimeout);
        Assert.Equal(TimeSpan.FromSeconds(30), limits.KeepAliveTimeout);
        Assert.Equal(SigningKestrelLimits.ConnectionsFor(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes), limits.MaxConcurrentConnections);
        Assert.Equal(8 * 1024, limits.MaxRequestBufferSize);
        Assert.Equal(4 * 1024, limits.MaxRequestLineSize);
        Assert.Equal(8 * 1024, limits.MaxRequestHeadersTotalSize);
        var sockets = factory.Services.GetRequiredService<IOptions<SocketTransportOptions>>().Value;
        Assert.Equal(17 * 1024, sockets.MaxReadBufferSize);
        Assert.False(sockets.WaitForDataBeforeAllocatingBuffer);
    }

    // The transport's settings on options of their own: the server above builds its options once for the whole class,
    // while whichever test first asks for them runs, so a check there does not always see them being made.
    [Fact]
    public void The_transport_reads_at_most_17_KiB_ahead_straight_into_a_block()
    {
        var sockets = new SocketTransportOptions();

        SigningKestrelLimits.ApplyReadBuffer(sockets);

        Assert.Equal(17 * 1024, sockets.MaxReadBufferSize);
        Assert.False(sockets.WaitForDataBeforeAllocatingBuffer);
    }

    [Fact]
    public async Task Body_trickling_below_the_minimum_rate_is_cut_off_after_the_grace_period()
    {
        using var client = factory.CreateClient();
        var address = client.BaseAddress!;
        using var tcp = new TcpClient();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await tcp.ConnectAsync(address.Host, address.Port, timeout.Token);
        var stream = tcp.GetStream();
        var head = $"POST /api/sign HTTP/1.1\r\nHost: {address.Authority}\r\nContent-Type: application/json\r\nContent-Length: {KestrelLimitsServerFactory.Limit}\r\n\r\n{{";
        await stream.WriteAsync(Encoding.ASCII.GetBytes(head), timeout.Token);
        var started = DateTime.UtcNow;

        // 1 KiB every 250 ms is 4 KiB/s: 17 times Kestrel's default minimum, a quarter of ours, and over four minutes for
        // the whole body. Kestrel must end the request within the grace period plus its once-a-second check; the loop
        // stops when writing fails or the server answers.
        var answer = new StringBuilder();
        var buffer = new byte[4096];
        var reading = stream.ReadAsync(buffer, timeout.Token).AsTask();
        try
        {
            while (!reading.IsCompleted && DateTime.UtcNow - started < TimeSpan.FromSeconds(20))
            {
                await stream.WriteAsync(Spaces, timeout.Token);
                await Task.WhenAny(reading, Task.Delay(250, timeout.Token));
            }
        }
        catch (IOException)
        {
            // The server closed the connection while we were still sending: the cut-off we wait for.
        }

        var elapsed = DateTime.UtcNow - started;
        try
        {
            var read = await reading.WaitAsync(TimeSpan.FromSeconds(5));
            answer.Append(Encoding.ASCII.GetString(buffer, 0, read));
        }
        catch (IOException)
        {
            // Reset instead of an answer: also a cut-off.
        }

        Assert.True(elapsed < TimeSpan.FromSeconds(15), $"cut off only after {elapsed}");
        Assert.True(elapsed >= SigningKestrelLimits.MinRequestBodyGracePeriod - TimeSpan.FromSeconds(1), $"cut off already after {elapsed}");
        var text = answer.ToString();
        Assert.True(text.Length == 0 || text.StartsWith("HTTP/1.1 408 ", StringComparison.Ordinal), text);

        for (var wait = 0; wait < 100 && factory.Pool.InUseBytes != 0; wait++)
        {
            await Task.Delay(50);
        }

        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
