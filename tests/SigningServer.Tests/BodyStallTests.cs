using System.Diagnostics;
using System.Globalization;

namespace SigningServer.Tests;

/// <summary>
/// A body that stops arriving is cut off with 408 once it has been silent for <c>Signing:BodyStallTimeout</c>, however
/// much it sent before, and its blocks go back to the pool; a slow but steady sender still gets through.
/// </summary>
public sealed class BodyStallTests(KestrelStallFactory factory) : IClassFixture<KestrelStallFactory>
{
    [Theory]
    [InlineData(50_000, 100_000, "recyclable")]
    [InlineData(4 * 1024 * 1024, 8 * 1024 * 1024, "recyclable")]
    [InlineData(50_000, 100_000, "transcode")]
    [InlineData(4 * 1024 * 1024, 8 * 1024 * 1024, "transcode")]
    public async Task A_body_that_goes_silent_is_cut_off_with_408_in_time(int sent, int declared, string strategy)
    {
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var body = Bodies.Padded(declared);

        await connection.SendAsync(RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=" + strategy, $"Content-Length: {declared.ToString(CultureInfo.InvariantCulture)}\r\n"));
        await connection.SendAsync(body.AsMemory(0, sent));
        var silent = Stopwatch.StartNew();
        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));

        Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
        Assert.Contains("Body stalled", answer, StringComparison.Ordinal);
        Assert.InRange(silent.Elapsed, KestrelStallFactory.StallTimeout * 0.8, TimeSpan.FromSeconds(8));
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0, TimeSpan.FromSeconds(5)));
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task A_slow_but_steady_sender_gets_through()
    {
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var body = Bodies.Canonical(widgetCount: 300, seed: 31);
        const int Chunk = 8 * 1024;

        // 8 KiB every 250 ms: about 32 KiB/s, above Kestrel's 16 KiB/s minimum, with no silence near the 2 s timeout.
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign", $"Content-Length: {body.Length.ToString(CultureInfo.InvariantCulture)}\r\n"));
        for (var offset = 0; offset < body.Length; offset += Chunk)
        {
            await connection.SendAsync(body.AsMemory(offset, Math.Min(Chunk, body.Length - offset)));
            await Task.Delay(250);
        }

        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));
        Assert.StartsWith("HTTP/1.1 200", answer, StringComparison.Ordinal);
        Assert.Contains(TestKey.SignatureOf(body), answer, StringComparison.Ordinal);
    }
}
