using System.Globalization;
using Signing.Http;
using Signing.Http.Requests;

namespace SigningServer.Tests.Clients;

/// <summary>Reads the cost a sign response reports (<see cref="SignCostHeaders"/>), checking the format as it goes.</summary>
internal static class CostHeaders
{
    /// <summary>The Server-Timing metrics as name → milliseconds, in the order sent; empty when the header is absent.</summary>
    public static IReadOnlyList<(string Name, double Milliseconds)> Timings(HttpResponseMessage response)
    {
        ArgumentNullException.ThrowIfNull(response);
        if (!response.Headers.TryGetValues(SignCostHeaders.ServerTiming, out var values))
        {
            return [];
        }

        var timings = new List<(string, double)>();
        foreach (var metric in string.Join(", ", values).Split(", "))
        {
            // name;dur=1.234 — the W3C syntax, with the duration in milliseconds.
            var match = System.Text.RegularExpressions.Regex.Match(metric, @"^([a-z]+);dur=([0-9]+(?:\.[0-9]+)?)$");
            Assert.True(match.Success, $"Malformed Server-Timing metric '{metric}'");
            timings.Add((match.Groups[1].Value, double.Parse(match.Groups[2].Value, CultureInfo.InvariantCulture)));
        }

        return timings;
    }

    /// <summary>The value of an allocation header as a non-negative integer, or null when it is absent.</summary>
    public static long? Bytes(HttpResponseMessage response, string header)
    {
        ArgumentNullException.ThrowIfNull(response);
        if (!response.Headers.TryGetValues(header, out var values))
        {
            return null;
        }

        var text = Assert.Single(values);
        Assert.Matches("^[0-9]+$", text);
        return long.Parse(text, CultureInfo.InvariantCulture);
    }
}
