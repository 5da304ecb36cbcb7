using System.Globalization;
using Microsoft.AspNetCore.Http;

namespace Signing.Http.Requests;

/// <summary>
/// The response headers through which every sign response says what it cost the server, so a load test can attribute
/// time and garbage to each request without a profiler attached.
/// </summary>
public static class SignCostHeaders
{
    /// <summary>
    /// The W3C Server-Timing header: <c>read</c>, <c>parse</c> and <c>sign</c> durations in milliseconds, each present
    /// when the request reached that phase, for example <c>read;dur=0.41, parse;dur=2.307, sign;dur=5.9</c>. Browsers'
    /// developer tools show it next to the request's own timings.
    /// </summary>
    public const string ServerTiming = "Server-Timing";

    /// <summary>Bytes allocated on the request's thread while the envelope was parsed, as a decimal integer.</summary>
    public const string ParseAllocatedBytes = "Parse-Allocated-Bytes";

    /// <summary>Bytes allocated on the request's thread while the strategy signed, as a decimal integer.</summary>
    public const string SignAllocatedBytes = "Sign-Allocated-Bytes";

    internal static void Write(IHeaderDictionary headers, SignCost cost)
    {
        var timings = new List<string>(3);
        if (cost.Read is { } read)
        {
            timings.Add(Timing("read", read));
        }

        if (cost.Parse is { } parse)
        {
            timings.Add(Timing("parse", parse.Duration));
            headers[ParseAllocatedBytes] = parse.AllocatedBytes.ToString(CultureInfo.InvariantCulture);
        }

        if (cost.Sign is { } sign)
        {
            timings.Add(Timing("sign", sign.Duration));
            headers[SignAllocatedBytes] = sign.AllocatedBytes.ToString(CultureInfo.InvariantCulture);
        }

        if (timings.Count > 0)
        {
            headers[ServerTiming] = string.Join(", ", timings);
        }
    }

    private static string Timing(string name, TimeSpan duration) =>
        string.Create(CultureInfo.InvariantCulture, $"{name};dur={duration.TotalMilliseconds:0.###}");
}
