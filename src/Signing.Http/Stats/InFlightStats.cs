namespace Signing.Http.Stats;

/// <summary>The in-flight memory budget: what requests in flight are charged now, the limit, and the refusals so far.</summary>
/// <param name="InUseBytes">Charged to requests in flight: zero whenever none is.</param>
/// <param name="LimitBytes">The most they may be charged together (<c>Signing:MaxInFlightBytes</c>, or its derived default).</param>
/// <param name="Refused">Requests refused with 503 since the process started.</param>
public sealed record InFlightStats(long InUseBytes, long LimitBytes, long Refused);
