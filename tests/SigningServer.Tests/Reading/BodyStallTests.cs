using System.Diagnostics;
using System.Globalization;
using System.IO.Compression;
using Signing.Http.Requests;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Reading;

/// <summary>
/// A body that stops arriving is cut off with 408 once it has been silent for <c>Signing:BodyStallTimeout</c>, however
/// much it sent before, with a declared length or chunked: one answer, the connection closed promptly after it rather
/// than held while Kestrel waits to drain the rest, no fault logged, and its blocks back in the pool; a slow but steady
/// sender still gets through.
/// </summary>
public sealed class BodyStallTests(KestrelStallFactory factory) : IClassFixture<KestrelStallFactory>
{
    // Padded bodies go silent in their spaces, which the tokenizer consumes as they come. A canonical body cut inside a
    // widget goes silent with the widget's start read but not consumed, as transcode leaves every read that ends inside
    // one: the host's reader is then handed back behind what it last examined.
    [Theory]
    [InlineData(50_000, 100_000, "recyclable", false, false)]
    [InlineData(4 * 1024 * 1024, 8 * 1024 * 1024, "recyclable", false, false)]
    [InlineData(50_000, 100_000, "transcode", false, false)]
    [InlineData(4 * 1024 * 1024, 8 * 1024 * 1024, "transcode", false, false)]
    [InlineData(50_000, 100_000, "recyclable", true, false)]
    [InlineData(50_000, 100_000, "transcode", true, false)]
    [InlineData(50_000, 100_000, "transcode", false, true)]
    [InlineData(50_000, 100_000, "transcode", true, true)]
    public async Task A_body_that_goes_silent_is_cut_off_with_408_in_time(int sent, int declared, string strategy, bool chunked, bool cutInsideWidget)
    {
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var body = cutInsideWidget ? Bodies.Canonical(widgetCount: 300, seed: 33)[..declared] : Bodies.Padded(declared);
        Assert.True(!cutInsideWidget || body.AsSpan(0, sent).LastIndexOf("}"u8) < body.AsSpan(0, sent).LastIndexOf("\"property"u8), "The cut falls inside a widget.");
        var mark = factory.Mark();

        var framing = chunked ? "Transfer-Encoding: chunked\r\n" : $"Content-Length: {declared.ToString(CultureInfo.InvariantCulture)}\r\n";
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign?strategy=" + strategy, framing));
        await connection.SendAsync(chunked ? RawHttpConnection.Chunks(body.AsSpan(0, sent)) : body.AsMemory(0, sent));
        var silent = Stopwatch.StartNew();
        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));

        // The whole exchange, the close included, ends within the timeout and a few beats: not 5 s of draining later.
        Assert.InRange(silent.Elapsed, KestrelStallFactory.StallTimeout * 0.8, TimeSpan.FromSeconds(6));
        Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
        Assert.Contains("Body stalled", answer, StringComparison.Ordinal);
        Assert.Single(answer.Split("HTTP/1.1 ", StringSplitOptions.RemoveEmptyEntries));
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0, TimeSpan.FromSeconds(5)));
        factory.AssertNoServerFaultSince(mark, $"{strategy}, {(chunked ? "chunked" : "Content-Length")}");
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("recyclable")]
    [InlineData("transcode")]
    public async Task A_compressed_body_that_sends_only_empty_blocks_is_cut_off_with_408_in_time(string strategy)
    {
        // Empty stored blocks (00 00 00 FF FF, what a sync flush writes) arrive on the wire and decompress to nothing: the
        // body's progress is what it decompresses to, so they must not keep its silence from counting.
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var mark = factory.Mark();
        byte[] start;
        using (var compressed = new MemoryStream())
        {
            using (var gzip = new GZipStream(compressed, CompressionLevel.Fastest, leaveOpen: true))
            {
                gzip.Write(Bodies.Padded(100_000).AsSpan(0, 50_000));
                gzip.Flush();
            }

            // Disposing wrote the final block and trailer: keep only what the sync flush had written.
            start = compressed.ToArray();
        }

        var flushed = start.AsSpan().IndexOf(new byte[] { 0, 0, 0, 0xFF, 0xFF }) + 5;
        await connection.SendAsync(RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=" + strategy, "Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n"));
        await connection.SendAsync(RawHttpConnection.Chunks(start.AsSpan(0, flushed)));
        var empty = RawHttpConnection.Chunks(Enumerable.Repeat<byte[]>([0, 0, 0, 0xFF, 0xFF], 800).SelectMany(b => b).ToArray());

        // 4 KB of empty blocks every 100 ms, 40 KB/s on the wire, until the server answers.
        var sending = Stopwatch.StartNew();
        while (!connection.HasAnswered && sending.Elapsed < TimeSpan.FromSeconds(10))
        {
            await connection.SendAsync(empty);
            await Task.Delay(100);
        }

        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(5));
        Assert.InRange(sending.Elapsed, KestrelStallFactory.StallTimeout * 0.8, TimeSpan.FromSeconds(6));
        Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
        Assert.Contains("Body stalled", answer, StringComparison.Ordinal);
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0, TimeSpan.FromSeconds(5)));
        factory.AssertNoServerFaultSince(mark, $"{strategy}, gzip of empty blocks");
    }

    [Theory]
    [InlineData("recyclable")]
    [InlineData("transcode")]
    public async Task A_compressed_body_that_trickles_blocks_of_high_ratio_is_cut_off_with_408_in_time(string strategy)
    {
        // Each block is a few dozen bytes on the wire and 16 KiB of spaces (valid after the envelope) once decompressed:
        // were progress only what the body decompresses to, a client could keep it alive at a few hundred bytes a second.
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var mark = factory.Mark();
        using var compressed = new MemoryStream();
        using var gzip = new GZipStream(compressed, CompressionLevel.Optimal, leaveOpen: true);
        gzip.Write(Bodies.Canonical(widgetCount: 1, seed: 3));
        gzip.Flush();
        var start = compressed.ToArray();
        compressed.SetLength(0);
        gzip.Write(Spaces());
        gzip.Flush();
        Assert.InRange(compressed.Length, 1, 200);
        var first = compressed.ToArray();
        await connection.SendAsync(RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=" + strategy, "Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n"));
        await connection.SendAsync(RawHttpConnection.Chunks([.. start, .. first]));

        // One block every 100 ms: under 2 KB/s on the wire, 160 KiB/s decompressed, until the server answers.
        var sending = Stopwatch.StartNew();
        while (!connection.HasAnswered && sending.Elapsed < TimeSpan.FromSeconds(10))
        {
            compressed.SetLength(0);
            gzip.Write(Spaces());
            gzip.Flush();
            await connection.SendAsync(RawHttpConnection.Chunks(compressed.ToArray()));
            await Task.Delay(100);
        }

        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(5));
        Assert.InRange(sending.Elapsed, KestrelStallFactory.StallTimeout * 0.8, KestrelStallFactory.StallTimeout * 2);
        Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
        Assert.Contains("Body stalled", answer, StringComparison.Ordinal);
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0, TimeSpan.FromSeconds(5)));
        factory.AssertNoServerFaultSince(mark, $"{strategy}, gzip of high-ratio blocks");
        await ServerHealth.AssertStillSigningAsync(client, factory);

        static byte[] Spaces()
        {
            var spaces = new byte[BodyStallClock.ProgressBytes];
            spaces.AsSpan().Fill((byte)' ');
            return spaces;
        }
    }

    [Fact]
    public async Task A_slow_but_steady_sender_gets_through()
    {
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var body = Bodies.Canonical(widgetCount: 300, seed: 31);
        const int BytesPerSecond = 32 * 1024;

        // 32 KiB/s, twice Kestrel's 16 KiB/s minimum, in a piece every 250 ms or so, with no silence near the 2 s timeout.
        // Each piece is what is due by the clock, so a timer that fires late on a busy machine does not lower the rate.
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign", $"Content-Length: {body.Length.ToString(CultureInfo.InvariantCulture)}\r\n"));
        var sending = Stopwatch.StartNew();
        for (var offset = 0; offset < body.Length;)
        {
            var due = (int)Math.Min(body.Length, (sending.Elapsed.TotalSeconds + 0.25) * BytesPerSecond);
            await connection.SendAsync(body.AsMemory(offset, due - offset));
            offset = due;
            await Task.Delay(250);
        }

        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));
        Assert.StartsWith("HTTP/1.1 200", answer, StringComparison.Ordinal);
        Assert.Contains(TestKey.SignatureOf(body), answer, StringComparison.Ordinal);
    }
}
