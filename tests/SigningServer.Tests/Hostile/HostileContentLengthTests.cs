using System.Globalization;
using System.Text;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// Content-Length lies over raw loopback sockets to real Kestrel: a huge declared length with a short body, answered
/// with a 413 problem before any body is read; the same lie from a client that then half-closes or resets; and
/// lengths Kestrel cannot parse. None may cost a 500, an unhandled exception in the log or a rented buffer.
/// </summary>
public sealed class HostileContentLengthTests(HostileKestrelFactory factory) : IClassFixture<HostileKestrelFactory>
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);
    private static readonly byte[] ShortBody = Encoding.UTF8.GetBytes("{\"widgets\":[");

    public static TheoryData<long> HugeLengths => new() { HostileKestrelFactory.Limit + 1L, 1L << 31, 1L << 40, 1L << 62, long.MaxValue };

    public static TheoryData<long, bool> LiesThenGone
    {
        get
        {
            var data = new TheoryData<long, bool>();
            foreach (var length in new[] { 1000L, HostileKestrelFactory.Limit, HostileKestrelFactory.Limit + 1L, long.MaxValue })
            {
                data.Add(length, false);
                data.Add(length, true);
            }

            return data;
        }
    }

    [Theory]
    [MemberData(nameof(HugeLengths))]
    public async Task Huge_content_length_with_a_short_body_is_a_413_problem(long declared)
    {
        var mark = factory.Mark();
        var response = await SendAsync(mark, declared, reset: null);

        Assert.StartsWith("HTTP/1.1 413 ", response, StringComparison.Ordinal);
        Assert.Contains("Content-Type: application/problem+json", response, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("\"status\":413", response, StringComparison.Ordinal);
        await AssertRecoveredAsync(mark, $"Content-Length {declared}", reachesEndpoint: true);
    }

    [Theory]
    [MemberData(nameof(LiesThenGone))]
    public async Task Content_length_lie_then_the_client_goes_away_is_no_server_fault(long declared, bool reset)
    {
        var mark = factory.Mark();
        var response = await SendAsync(mark, declared, reset);

        // A half-close leaves the server a way to answer (a 4xx); a reset leaves none.
        Assert.True(response.Length == 0 || response.StartsWith("HTTP/1.1 4", StringComparison.Ordinal), response);
        await AssertRecoveredAsync(mark, $"Content-Length {declared}, then {(reset ? "a reset" : "a half-close")}", reachesEndpoint: true);
    }

    [Theory]
    [InlineData("Content-Length: -1\r\n")]
    [InlineData("Content-Length: 99999999999999999999999\r\n")]
    [InlineData("Content-Length: 12abc\r\n")]
    [InlineData("Content-Length: 0x10\r\n")]
    [InlineData("Content-Length: 10\r\nContent-Length: 20\r\n")]
    public async Task Content_length_kestrel_cannot_parse_is_400(string headers)
    {
        // Kestrel refuses these while parsing the request, before the application (and its problem details) runs.
        var mark = factory.Mark();
        using var client = factory.CreateClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign", headers));
        await connection.SendAsync(ShortBody);

        var response = await connection.ReadToEndAsync(Bound);

        Assert.StartsWith("HTTP/1.1 400 ", response, StringComparison.Ordinal);
        await AssertRecoveredAsync(mark, headers.TrimEnd(), reachesEndpoint: false);
    }

    // Sends a POST declaring `declared` bytes with a 12-byte body; once the endpoint has the request (it has rented a
    // buffer or already answered), resets or half-closes the connection, or does neither. Returns whatever the server
    // answers before it closes the connection.
    private async Task<string> SendAsync((int Log, int Responses) mark, long declared, bool? reset)
    {
        using var client = factory.CreateClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var length = declared.ToString(CultureInfo.InvariantCulture);
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign?strategy=recyclable", $"Content-Length: {length}\r\n"));
        await connection.SendAsync(ShortBody);
        if (reset is null)
        {
            return await connection.ReadToEndAsync(Bound);
        }

        var started = await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes > 0 || factory.ResponsesSince(mark).Count > 0, Bound);
        Assert.True(started is not null, "The endpoint never got the request.");
        if (reset.Value)
        {
            connection.Abort();
            return "";
        }

        connection.HalfClose();
        return await connection.ReadToEndAsync(Bound);
    }

    // Waits (bounded) for the request to end, since the connection closing does not wait for it to unwind; then checks
    // that it left no buffer rented and no fault, and that the server still signs.
    private async Task AssertRecoveredAsync((int Log, int Responses) mark, string because, bool reachesEndpoint)
    {
        var ended = await BoundedWait.UntilAsync(
            () => factory.Pool.InUseBytes == 0 && (!reachesEndpoint || factory.ResponsesSince(mark).Any(r => r.Path == "/api/sign")),
            Bound);
        Assert.True(ended is not null, $"{because}: the request had not ended after {Bound}; {factory.Pool.InUseBytes} bytes of blocks in use");
        Assert.All(factory.ResponsesSince(mark), r => Assert.False(r.Path == "/api/sign" && !reachesEndpoint, $"{because}: reached the endpoint: {r}"));
        factory.AssertNoServerFaultSince(mark, because);

        using var client = factory.CreateClient();
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
