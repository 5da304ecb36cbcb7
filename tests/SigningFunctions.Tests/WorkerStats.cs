using System.Diagnostics;
using System.Text.Json;

namespace SigningFunctions.Tests;

/// <summary>Reads the worker's <c>GET /api/stats</c>: what its requests in flight are charged, to see one arrive and leave.</summary>
internal static class WorkerStats
{
    /// <summary>Polls until the in-flight charge satisfies <paramref name="condition"/>; returns how long it took, or fails after 15 s.</summary>
    public static async Task<TimeSpan> UntilInFlightAsync(HttpClient client, Func<long, bool> condition, string what)
    {
        var waited = Stopwatch.StartNew();
        long inUse = -1;
        while (waited.Elapsed < TimeSpan.FromSeconds(15))
        {
            using var stats = JsonDocument.Parse(await client.GetStringAsync("/api/stats"));
            inUse = stats.RootElement.GetProperty("inFlight").GetProperty("inUseBytes").GetInt64();
            if (condition(inUse))
            {
                return waited.Elapsed;
            }

            await Task.Delay(50);
        }

        Assert.Fail($"{what}: the worker's in-flight charge stayed at {inUse} bytes for 15 s.");
        return waited.Elapsed;
    }
}
