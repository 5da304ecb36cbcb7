namespace Signing.Http.Stats;

/// <summary>
/// The in-flight memory budget: what requests in flight are charged now, the limit, the refusals so far, the
/// bodies cut for room, and the largest body each strategy takes within it.
/// </summary>
/// <param name="InUseBytes">Charged to requests in flight: zero whenever none is.</param>
/// <param name="LimitBytes">The most they may be charged together (<c>Signing:MaxInFlightBytes</c>, or its derived default).</param>
/// <param name="Refused">Requests refused with 503 since the process started.</param>
/// <param name="CutForRoom">
/// Bodies cut with 408 since the process started because they were not arriving (or too slowly for what they held) when the budget was full
/// (<see cref="Requests.SlowBodies"/>).
/// </param>
/// <param name="MaxBodyBytes">
/// By strategy name, the largest body it takes: <c>Signing:MaxRequestBodyBytes</c>, or less for a strategy whose charge
/// for that body would not fit the budget (<see cref="Memory.StrategyBodyLimits"/>). Fixed at start-up.
/// </param>
public sealed record InFlightStats(long InUseBytes, long LimitBytes, long Refused, long CutForRoom, IReadOnlyDictionary<string, long> MaxBodyBytes);
