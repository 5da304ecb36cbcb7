using System.Net.Http.Json;
using Signing.Http.Stats;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// A chunked body over a strategy's own limit is refused part-way, with no length to tell how much more is coming: the
/// 413 says <c>Connection: close</c>, as Kestrel's own does. Kept alive, Kestrel would read the rest, and a body past
/// the service's limit too would have the connection dropped under the next request the client sent on it.
/// </summary>
public sealed class ChunkedBodyLimitTests(KestrelSmallBudgetFactory factory) : IClassFixture<KestrelSmallBudgetFactory>
{
    [Theory]
    [InlineData(0.75)]
    [InlineData(1.5)]
    public async Task A_chunked_body_over_a_strategys_own_limit_gets_413_and_the_connection_closes(double ofServiceLimit)
    {
        using var client = factory.CreateStreamingClient();
        var limits = (await client.GetFromJsonAsync<ServiceStats>("/api/stats"))!.InFlight.MaxBodyBytes;
        var length = (int)(ofServiceLimit * KestrelSmallBudgetFactory.Limit);
        Assert.InRange(limits["string"], 1, Math.Min(length, KestrelSmallBudgetFactory.Limit) - 1);
        var body = Bodies.Padded(length);

        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign?strategy=string", "Transfer-Encoding: chunked\r\n", keepAlive: true));
        try
        {
            await connection.SendAsync((byte[])[.. RawHttpConnection.Chunks(body), .. "0\r\n\r\n"u8]);
        }
        catch (IOException)
        {
            // The server may close before the whole body is sent: the answer is what matters.
        }

        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));

        Assert.StartsWith("HTTP/1.1 413", answer, StringComparison.Ordinal);
        Assert.Contains("\r\nConnection: close\r\n", answer, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("\"strategy\":\"string\"", answer, StringComparison.Ordinal);
    }
}
