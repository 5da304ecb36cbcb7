using System.Net.Http.Json;
using Signing.Http;
using Signing.Http.Stats;

namespace SigningServer.Tests.Clients;

/// <summary>One strategy's request and error totals as <c>GET /api/stats</c> reports them.</summary>
internal sealed record StrategyCounts(long Requests, long Errors)
{
    public static async Task<StrategyCounts> ReadAsync(HttpClient client, string strategy)
    {
        ArgumentNullException.ThrowIfNull(client);
        var stats = await client.GetFromJsonAsync<ServiceStats>("/api/stats");
        var totals = stats!.Strategies.Single(s => s.Name == strategy);
        return new StrategyCounts(totals.Requests, totals.Errors);
    }
}
