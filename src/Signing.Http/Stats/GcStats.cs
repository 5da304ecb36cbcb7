namespace Signing.Http.Stats;

/// <summary>
/// The garbage collector as a load test needs to see it: which collector runs (server or workstation, background or
/// not: the same code behaves differently under each), how often each generation was collected, and how much it
/// paused.
/// </summary>
/// <param name="Server">Server GC (a heap per core, the ASP.NET Core default) rather than workstation GC (the default of a plain console or Functions worker project).</param>
/// <param name="Concurrent">
/// Background gen 2 collections are enabled. Read from the latency mode: the runtime reports <c>Batch</c> exactly when
/// concurrent collection is off.
/// </param>
/// <param name="LatencyMode">The <see cref="System.Runtime.GCLatencyMode"/> in force.</param>
/// <param name="Collections">Collections of each generation since the process started.</param>
/// <param name="TotalAllocatedBytes">Bytes allocated by every thread since the process started, whatever allocated them.</param>
/// <param name="TotalPauseMilliseconds">Time the runtime was paused for collections since the process started.</param>
/// <param name="PauseTimePercentage">Share of the process's lifetime spent paused for collections, as the runtime reports it.</param>
/// <param name="LastCollection">The heap as the most recent collection left it; all zeros before the first.</param>
public sealed record GcStats(
    bool Server,
    bool Concurrent,
    string LatencyMode,
    CollectionCounts Collections,
    long TotalAllocatedBytes,
    double TotalPauseMilliseconds,
    double PauseTimePercentage,
    LastCollectionStats LastCollection);
