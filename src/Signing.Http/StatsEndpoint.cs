using System.Runtime;
using Microsoft.AspNetCore.Http;
using Microsoft.Net.Http.Headers;
using Signing.Http.Memory;
using Signing.Http.Requests;
using Signing.Http.Stats;

namespace Signing.Http;

/// <summary>
/// <c>GET /api/stats</c>, written once for both hosts like <see cref="SignEndpoint"/>: a JSON snapshot of the garbage
/// collector, the process, the stream pool and each strategy's totals, so runs can be compared in the runtime that
/// serves them.
/// </summary>
public sealed class StatsEndpoint(
    SigningTelemetry telemetry, StreamPool pool, InFlightBudget budget, SlowBodies slowBodies, StrategyBodyLimits bodyLimits, InstanceStats instance)
{
    // Fixed at start-up, so made once.
    private readonly IReadOnlyDictionary<string, long> _maxBodyBytes = bodyLimits.ToDictionary();

    /// <summary>
    /// Answers with a fresh <see cref="ServiceStats"/>, marked <c>no-store</c> because two reads a second apart must
    /// never be the same cached body.
    /// </summary>
    public IResult Handle(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        request.HttpContext.Response.Headers[HeaderNames.CacheControl] = "no-store";
        return TypedResults.Ok(Capture());
    }

    private ServiceStats Capture() => new(
        DateTimeOffset.UtcNow,
        CaptureGc(),
        CaptureProcess(),
        new InFlightStats(budget.InUseBytes, budget.LimitBytes, budget.Refused, slowBodies.Cut, _maxBodyBytes),
        new StreamPoolStats(
            pool.Manager.SmallPoolInUseSize,
            pool.Manager.SmallPoolFreeSize,
            pool.Options.MaximumSmallPoolFreeBytes,
            pool.Manager.LargePoolInUseSize,
            pool.Manager.LargePoolFreeSize,
            pool.Options.MaximumLargePoolFreeBytes,
            pool.Options.BlockSize,
            pool.BlocksCreated,
            pool.LargeBuffersCreated,
            pool.BuffersDiscarded,
            pool.StreamsOverCapacity,
            pool.StreamsDoubleDisposed,
            pool.StreamsFinalized),
        telemetry.Strategies.Select(s => s.Snapshot()).ToArray(),
        instance);

    private static GcStats CaptureGc()
    {
        var info = GC.GetGCMemoryInfo();
        var generations = info.GenerationInfo;
        return new GcStats(
            GCSettings.IsServerGC,
            GCSettings.LatencyMode != GCLatencyMode.Batch,
            GCSettings.LatencyMode.ToString(),
            new CollectionCounts(GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)),
            GC.GetTotalAllocatedBytes(precise: false),
            GC.GetTotalPauseDuration().TotalMilliseconds,
            info.PauseTimePercentage,
            new LastCollectionStats(
                info.Index,
                info.Generation,
                info.HeapSizeBytes,
                info.FragmentedBytes,
                info.TotalCommittedBytes,
                info.PromotedBytes,
                new HeapGenerations(
                    Generation(generations, 0),
                    Generation(generations, 1),
                    Generation(generations, 2),
                    Generation(generations, 3),
                    Generation(generations, 4))));
    }

    // The runtime always describes five parts, indexed as HeapGenerations lists them.
    private static GenerationStats Generation(ReadOnlySpan<GCGenerationInfo> generations, int index)
    {
        var g = generations[index];
        return new GenerationStats(g.SizeBeforeBytes, g.SizeAfterBytes, g.FragmentationBeforeBytes, g.FragmentationAfterBytes);
    }

    private static ProcessStats CaptureProcess()
    {
        using var process = System.Diagnostics.Process.GetCurrentProcess();
        return new ProcessStats(
            process.WorkingSet64,
            process.PeakWorkingSet64,
            process.PrivateMemorySize64,
            process.TotalProcessorTime.TotalSeconds,
            (DateTime.Now - process.StartTime).TotalSeconds,
            Environment.ProcessorCount);
    }
}
