namespace Signing.Http.Stats;

/// <summary>
/// One strategy's totals in <c>GET /api/stats</c>, since the process started. Totals rather than rates, so a caller
/// that reads the stats before and after a run gets that run's numbers by subtraction, whatever else ran before.
/// </summary>
/// <param name="Name">The strategy's canonical name.</param>
/// <param name="Requests">Requests that named this strategy (or fell back to it as the default), whatever their outcome.</param>
/// <param name="Errors">Those of <paramref name="Requests"/> that did not end in a 200: client mistakes, server faults, cancellations.</param>
/// <param name="Refused">Those of <paramref name="Errors"/> refused with 503 because the in-flight memory budget was full.</param>
/// <param name="ParseAllocatedBytes">Bytes allocated on request threads while parsing for this strategy; the sum of the <c>Parse-Allocated-Bytes</c> headers.</param>
/// <param name="SignAllocatedBytes">Bytes allocated on request threads while this strategy signed; the sum of the <c>Sign-Allocated-Bytes</c> headers.</param>
/// <param name="ParseSeconds">Time spent parsing for this strategy.</param>
/// <param name="SignSeconds">Time spent in this strategy's sign.</param>
public sealed record StrategyStats(
    string Name,
    long Requests,
    long Errors,
    long Refused,
    long ParseAllocatedBytes,
    long SignAllocatedBytes,
    double ParseSeconds,
    double SignSeconds);
