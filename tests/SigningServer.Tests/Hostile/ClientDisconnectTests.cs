using System.Globalization;
using Signing.Http.Memory;
using Signing.Tests.Waiting;
using Signing.Transcoding;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// Clients that go away mid-upload and mid-response, over raw loopback sockets to real Kestrel with the write-up's
/// 1 MB envelope: the request ends promptly (cancellation is honoured, well before Kestrel's 5 s body-rate grace
/// could end it), is counted against its strategy, leaves no pooled buffer rented, and logs no unhandled exception.
/// </summary>
public sealed class ClientDisconnectTests(HostileKestrelFactory factory) : IClassFixture<HostileKestrelFactory>
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    // Under Kestrel's MinRequestBodyDataRate grace (5 s), so a request that ends in time ended because the client went.
    private static readonly TimeSpan Prompt = TimeSpan.FromSeconds(4);

    private static readonly byte[] Envelope = Bodies.Canonical(widgetCount: 3000, seed: 1);

    public enum Upload
    {
        /// <summary>Content-Length, the first 64 KiB, then a reset.</summary>
        ResetAfterPartOfContentLength,

        /// <summary>Content-Length, the first 64 KiB, then a half-close (the body ends early).</summary>
        HalfCloseAfterPartOfContentLength,

        /// <summary>Content-Length, the first 64 KiB, then a close, the answer unread (a client process that ends).</summary>
        CloseAfterPartOfContentLength,

        /// <summary>Chunked, the first 64 KiB in chunks, then a reset.</summary>
        ResetAfterSomeChunks,

        /// <summary>Chunked, the first 64 KiB in chunks, then a half-close with no terminating chunk.</summary>
        HalfCloseAfterSomeChunks,

        /// <summary>Content-Length and no body at all, then a reset.</summary>
        ResetAfterHeaders,
    }

    // What a client that goes mid-upload sends of the body: enough for several reads, which end inside widgets.
    private const int Sent = 64 * 1024;

    // Each upload from a client that asks to keep the connection (as HTTP clients do by default), and from one that
    // asks to close it after the request.
    public static TheoryData<Upload, bool> Uploads()
    {
        var uploads = new TheoryData<Upload, bool>();
        foreach (var upload in Enum.GetValues<Upload>())
        {
            uploads.Add(upload, true);
            uploads.Add(upload, false);
        }

        return uploads;
    }

    [Theory]
    [MemberData(nameof(Uploads))]
    public async Task Client_gone_mid_upload_ends_the_request_without_a_fault(Upload upload, bool keepAlive)
    {
        using var client = factory.CreateClient();
        var chunked = upload is Upload.ResetAfterSomeChunks or Upload.HalfCloseAfterSomeChunks;
        foreach (var strategy in factory.StrategyNames)
        {
            // transcode reads the body token by token, and a read that ends inside one leaves bytes examined and not
            // consumed: the state in which a body cut short used to leave the host's reader mid-read.
            var because = $"{strategy}, {upload}, {(keepAlive ? "keep-alive" : "Connection: close")}";
            var before = await StrategyCounts.ReadAsync(client, strategy);
            var mark = factory.Mark();
            var signsStarted = factory.StartedCount("/api/sign");

            using (var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!))
            {
                var headers = chunked ? "Transfer-Encoding: chunked\r\n" : $"Content-Length: {Envelope.Length.ToString(CultureInfo.InvariantCulture)}\r\n";
                await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, $"/api/sign?strategy={strategy}", headers, keepAlive));
                if (upload == Upload.ResetAfterHeaders)
                {
                    // A reset that comes while Kestrel still holds the headers unread ends the connection before any
                    // request, so the client waits for its request to be in. Nothing shows the endpoint then waiting for
                    // a first byte: it is given the time to get there.
                    var started = await BoundedWait.UntilAsync(() => factory.StartedCount("/api/sign") > signsStarted, Bound);
                    Assert.True(started is not null, $"{because}: the request never reached the application.");
                    await Task.Delay(TimeSpan.FromMilliseconds(100));
                }
                else
                {
                    await connection.SendAsync(chunked ? RawHttpConnection.Chunks(Envelope.AsSpan(0, Sent)) : Envelope.AsMemory(0, Sent));

                    // Charged for every byte sent, the endpoint has read them all, and its next read is the one that
                    // waits: the read a body cut short ends.
                    var charge = ChargeFor(strategy, Sent);
                    var reading = await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes >= charge, Bound);
                    Assert.True(reading is not null, $"{because}: the endpoint never read what was sent.");
                    await Task.Delay(TimeSpan.FromMilliseconds(50));
                }

                if (upload is Upload.HalfCloseAfterPartOfContentLength or Upload.HalfCloseAfterSomeChunks)
                {
                    connection.HalfClose();
                    var answer = await connection.ReadToEndAsync(Bound);
                    Assert.True(answer.Length == 0 || answer.StartsWith("HTTP/1.1 400 ", StringComparison.Ordinal), $"{because}: {answer}");
                }
                else if (upload != Upload.CloseAfterPartOfContentLength)
                {
                    connection.Abort();
                }

                // Otherwise disposing closes the connection without reading a byte of the answer.
            }

            // Counted as a failure of its strategy, promptly, with its buffers and its charge back.
            var ended = await BoundedWait.UntilAsync(
                async () => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0 && (await StrategyCounts.ReadAsync(client, strategy)).Errors > before.Errors,
                Bound);
            Assert.True(ended is not null, $"{because}: the request had not ended after {Bound}; {factory.Pool.InUseBytes} bytes of blocks in use");
            Assert.True(ended < Prompt, $"{because}: the request took {ended} to end after the client went");
            Assert.Equal(before.Requests + 1, (await StrategyCounts.ReadAsync(client, strategy)).Requests);

            // Kestrel logs a connection left mid-read once it gives up on it, after the request has been counted.
            await Task.Delay(TimeSpan.FromMilliseconds(200));
            factory.AssertNoServerFaultSince(mark, because);
        }

        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData(0, true)]
    [InlineData(20, true)]
    [InlineData(60, true)]
    [InlineData(0, false)]
    [InlineData(60, false)]
    public async Task Client_gone_after_sending_and_before_reading_costs_nothing(int delayMilliseconds, bool reset)
    {
        using var client = factory.CreateClient();
        foreach (var strategy in factory.StrategyNames)
        {
            var because = $"{strategy}, {(reset ? "reset" : "closed")} {delayMilliseconds} ms after sending";
            var before = await StrategyCounts.ReadAsync(client, strategy);
            var mark = factory.Mark();

            using (var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!))
            {
                var headers = $"Content-Length: {Envelope.Length.ToString(CultureInfo.InvariantCulture)}\r\n";
                await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, $"/api/sign?strategy={strategy}", headers));

                // Once the endpoint is reading (it is charged for the first byte), the request is the endpoint's to
                // finish, whatever the client does.
                await connection.SendAsync(Envelope.AsMemory(0, 1));
                var reading = await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes > 0, Bound);
                Assert.True(reading is not null, $"{because}: the endpoint never started reading the body.");
                await connection.SendAsync(Envelope.AsMemory(1));
                await Task.Delay(delayMilliseconds);
                if (reset)
                {
                    connection.Abort();
                }

                // Otherwise disposing closes the connection without reading a byte of the answer.
            }

            // The outcome may be a 200 whose answer nobody reads, or a read cut short; either way it ends and is counted.
            var ended = await BoundedWait.UntilAsync(
                async () => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0 && (await StrategyCounts.ReadAsync(client, strategy)).Requests > before.Requests,
                Bound);
            Assert.True(ended is not null, $"{because}: the request had not ended after {Bound}; {factory.Pool.InUseBytes} bytes of blocks in use");
            factory.AssertNoServerFaultSince(mark, because);
        }

        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    // What the endpoint is charged once it has read bodyBytes of a body for strategy.
    private long ChargeFor(string strategy, long bodyBytes)
    {
        var blockSize = factory.Pool.Options.BlockSize;
        return strategy == TranscodingSigner.StrategyName
            ? RequestMemory.ForTranscode(bodyBytes, blockSize)
            : RequestMemory.ForArrivedBody(bodyBytes, blockSize);
    }
}
