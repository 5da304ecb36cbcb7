using System.Globalization;
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
    private const string Strategy = "recyclable";
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

        /// <summary>Chunked, the first 64 KiB in chunks, then a reset.</summary>
        ResetAfterSomeChunks,

        /// <summary>Chunked, the first 64 KiB in chunks, then a half-close with no terminating chunk.</summary>
        HalfCloseAfterSomeChunks,

        /// <summary>Content-Length and no body at all, then a reset.</summary>
        ResetAfterHeaders,
    }

    public static TheoryData<Upload> Uploads => new(Enum.GetValues<Upload>());

    [Theory]
    [MemberData(nameof(Uploads))]
    public async Task Client_gone_mid_upload_ends_the_request_without_a_fault(Upload upload)
    {
        using var client = factory.CreateClient();
        var before = await StrategyCounts.ReadAsync(client, Strategy);
        var mark = factory.Mark();
        var chunked = upload is Upload.ResetAfterSomeChunks or Upload.HalfCloseAfterSomeChunks;

        using (var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!))
        {
            var headers = chunked ? "Transfer-Encoding: chunked\r\n" : $"Content-Length: {Envelope.Length.ToString(CultureInfo.InvariantCulture)}\r\n";
            await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, $"/api/sign?strategy={Strategy}", headers));
            if (upload != Upload.ResetAfterHeaders)
            {
                await connection.SendAsync(chunked ? RawHttpConnection.Chunks(Envelope.AsSpan(0, 64 * 1024)) : Envelope.AsMemory(0, 64 * 1024));
            }

            // The body reader rents its buffer before its first read: from here the request is mid-upload.
            var reading = await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes > 0, Bound);
            Assert.True(reading is not null, $"{upload}: the endpoint never started reading the body.");

            if (upload is Upload.HalfCloseAfterPartOfContentLength or Upload.HalfCloseAfterSomeChunks)
            {
                connection.HalfClose();
                var answer = await connection.ReadToEndAsync(Bound);
                Assert.True(answer.Length == 0 || answer.StartsWith("HTTP/1.1 400 ", StringComparison.Ordinal), $"{upload}: {answer}");
            }
            else
            {
                connection.Abort();
            }
        }

        // Counted as a failure of its strategy, promptly, with its buffer back.
        var ended = await BoundedWait.UntilAsync(
            async () => factory.Pool.InUseBytes == 0 && (await StrategyCounts.ReadAsync(client, Strategy)).Errors > before.Errors,
            Bound);
        Assert.True(ended is not null, $"{upload}: the request had not ended after {Bound}; {factory.Pool.InUseBytes} bytes of blocks in use");
        Assert.True(ended < Prompt, $"{upload}: the request took {ended} to end after the client went");
        Assert.Equal(before.Requests + 1, (await StrategyCounts.ReadAsync(client, Strategy)).Requests);
        factory.AssertNoServerFaultSince(mark, upload.ToString());
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
}
