namespace Signing.Http.Stats;

/// <summary>
/// Collections per generation since the process started (<see cref="GC.CollectionCount"/>). A gen 2 collection also
/// counts as a gen 1 and a gen 0 collection, as the runtime counts them.
/// </summary>
/// <param name="Gen0">Gen 0 collections, the cheap ones.</param>
/// <param name="Gen1">Gen 1 collections.</param>
/// <param name="Gen2">Full collections, which also sweep the large object heap: what large-object churn causes.</param>
public sealed record CollectionCounts(int Gen0, int Gen1, int Gen2);
