using Signing.Http.Keys;

namespace Signing.Http.Stats;

/// <summary>
/// The body of <c>GET /api/stats</c>: a snapshot for comparing runs. Counters are totals since the process started,
/// so a load test reads it before and after each run and subtracts, provided both snapshots name the same
/// <see cref="Instance"/>.
/// </summary>
/// <param name="Timestamp">When the snapshot was taken (UTC), to turn differences into rates.</param>
/// <param name="Gc">The garbage collector's mode, counts and heap sizes.</param>
/// <param name="Process">The process's memory and CPU time.</param>
/// <param name="InFlight">The in-flight memory budget that admission control charges requests against.</param>
/// <param name="StreamPool">The RecyclableMemoryStream pool behind request bodies and the recyclable strategies.</param>
/// <param name="Strategies">Per-strategy totals, in the order of <see cref="SigningKeyRing.StrategyNames"/>.</param>
/// <param name="Instance">The instance and process that took the snapshot: subtract only snapshots of the same one.</param>
public sealed record ServiceStats(
    DateTimeOffset Timestamp,
    GcStats Gc,
    ProcessStats Process,
    InFlightStats InFlight,
    StreamPoolStats StreamPool,
    IReadOnlyList<StrategyStats> Strategies,
    InstanceStats Instance);
