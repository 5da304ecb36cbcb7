namespace Signing.Http.Stats;

/// <summary>
/// The heap as the most recent collection of any kind saw it (<see cref="GC.GetGCMemoryInfo()"/>). The runtime
/// measures sizes only when it collects, so these are not live readings: under load they are at most one gen 0
/// collection old.
/// </summary>
/// <param name="Index">The collection's sequence number; unchanged between two snapshots means no collection happened.</param>
/// <param name="Generation">The generation it collected: 2 is a full collection.</param>
/// <param name="HeapSizeBytes">Total heap size when it finished, every generation included.</param>
/// <param name="FragmentedBytes">Free space inside the heap when it finished.</param>
/// <param name="CommittedBytes">Memory committed for the heap when it finished.</param>
/// <param name="PromotedBytes">Bytes it promoted to an older generation.</param>
/// <param name="Generations">Each generation's size and fragmentation before and after it.</param>
public sealed record LastCollectionStats(
    long Index,
    int Generation,
    long HeapSizeBytes,
    long FragmentedBytes,
    long CommittedBytes,
    long PromotedBytes,
    HeapGenerations Generations);
