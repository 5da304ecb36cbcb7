using System.Collections.Frozen;
using System.Diagnostics.Metrics;
using Signing.Http.Keys;
using Signing.Http.Memory;
using Signing.Http.Requests;
using Signing.Http.Stats;

namespace Signing.Http;

/// <summary>
/// Where every sign request's cost goes: per-strategy totals for <c>GET /api/stats</c>, and the <c>Signing</c>
/// <see cref="Meter"/>, so <c>dotnet-counters</c>, OpenTelemetry and Application Insights see the same numbers with no
/// code of their own. GC, heap and working-set metrics are not repeated here: the runtime publishes them already in
/// its <c>System.Runtime</c> meter.
/// </summary>
/// <remarks>
/// Recording is a few <see cref="Interlocked"/> additions and instrument calls that cost next to nothing while no
/// listener is attached, so it stays on for every request.
/// </remarks>
public sealed class SigningTelemetry
{
    /// <summary>The name of the service's meter, for <c>dotnet-counters monitor --counters Signing</c> or an OpenTelemetry <c>AddMeter</c>.</summary>
    public const string MeterName = "Signing";

    /// <summary>Histogram, seconds: the whole request from the endpoint's start to its result, tagged <see cref="StrategyTag"/> and <see cref="OutcomeTag"/>.</summary>
    public const string RequestDurationName = "signing.request.duration";

    /// <summary>Histogram, seconds: one phase of a request, tagged <see cref="StrategyTag"/> and <see cref="PhaseTag"/> (<c>read</c>, <c>parse</c> or <c>sign</c>).</summary>
    public const string PhaseDurationName = "signing.phase.duration";

    /// <summary>Histogram, bytes: allocated on the request's thread in one phase, tagged <see cref="StrategyTag"/> and <see cref="PhaseTag"/> (<c>parse</c> or <c>sign</c>).</summary>
    public const string PhaseAllocatedName = "signing.phase.allocated";

    /// <summary>
    /// Histogram, bytes: allocated on the request's thread while parsing and signing together, one value per request
    /// that reached parsing, tagged <see cref="StrategyTag"/> and <see cref="OutcomeTag"/>: its sum over its count is
    /// the mean a strategy costs per request, which adds up across instances.
    /// </summary>
    public const string RequestAllocatedName = "signing.request.allocated";

    /// <summary>Histogram, bytes: the body as sent, one value per request whose body was read, tagged <see cref="StrategyTag"/> and <see cref="OutcomeTag"/>.</summary>
    public const string RequestBodySizeName = "signing.request.body.size";

    /// <summary>Gauge, bytes: held by RecyclableMemoryStreams not yet disposed, tagged <see cref="PoolTag"/>.</summary>
    public const string PoolInUseName = "signing.stream_pool.in_use";

    /// <summary>Gauge, bytes: kept free for reuse, tagged <see cref="PoolTag"/>.</summary>
    public const string PoolFreeName = "signing.stream_pool.free";

    /// <summary>Gauge, bytes: the most the free pool may keep (a configured bound, not a reading), tagged <see cref="PoolTag"/>.</summary>
    public const string PoolFreeLimitName = "signing.stream_pool.free.limit";

    /// <summary>Counter: the RecyclableMemoryStream events operators watch, tagged <see cref="PoolEventTag"/>.</summary>
    public const string PoolEventsName = "signing.stream_pool.events";

    /// <summary>The tag holding the strategy's canonical name.</summary>
    public const string StrategyTag = "signing.strategy";

    /// <summary>Counter: requests refused with 503 because the in-flight memory budget was full, tagged <see cref="StrategyTag"/>.</summary>
    public const string RefusedName = "signing.admission.refused";

    /// <summary>
    /// Counter: bodies cut with 408 to make room in a full in-flight budget, because they were not arriving, or too
    /// slowly for what they held (<see cref="SlowBodies"/>).
    /// </summary>
    public const string CutForRoomName = "signing.admission.cut";

    /// <summary>Gauge, bytes: what requests in flight are charged against the in-flight memory budget.</summary>
    public const string InFlightUsageName = "signing.in_flight.usage";

    /// <summary>Gauge, bytes: the in-flight memory budget's limit.</summary>
    public const string InFlightLimitName = "signing.in_flight.limit";

    /// <summary>The tag holding <c>success</c> (a 200), <c>refused</c> (a 503 from the in-flight budget) or <c>failure</c> (anything else).</summary>
    public const string OutcomeTag = "signing.outcome";

    /// <summary>The tag holding the phase's name.</summary>
    public const string PhaseTag = "signing.phase";

    /// <summary>The tag holding <c>small</c> (the blocks) or <c>large</c> (contiguous buffers): RecyclableMemoryStream's two pools.</summary>
    public const string PoolTag = "signing.stream_pool.pool";

    /// <summary>
    /// The tag holding the event: <c>block_created</c>, <c>large_buffer_created</c>, <c>buffer_discarded</c>,
    /// <c>stream_over_capacity</c>, <c>stream_double_disposed</c> or <c>stream_finalized</c>.
    /// </summary>
    public const string PoolEventTag = "signing.stream_pool.event";

    // Durations from a tenth of a millisecond (a small envelope's parse) to seconds (a big one on a saturated server).
    private static readonly double[] SecondsBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

    // Powers of four from 1 KiB to 64 MiB: the 3,000-widget envelope's string strategy allocates several MB per sign.
    private static readonly long[] ByteBuckets = [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26];

    private readonly FrozenDictionary<string, StrategyTotals> _totals;
    private readonly Histogram<double> _requestDuration;
    private readonly Histogram<double> _phaseDuration;
    private readonly Histogram<long> _phaseAllocated;
    private readonly Counter<long> _refused;
    private readonly Histogram<long> _requestAllocated;
    private readonly Histogram<long> _requestBodySize;

    /// <summary>Creates the meter through <paramref name="meterFactory"/>, so it is scoped to, and disposed with, the host.</summary>
    public SigningTelemetry(IMeterFactory meterFactory, SigningKeyRing keys, StreamPool pool, InFlightBudget budget, SlowBodies slowBodies)
    {
        ArgumentNullException.ThrowIfNull(meterFactory);
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(pool);
        ArgumentNullException.ThrowIfNull(budget);
        ArgumentNullException.ThrowIfNull(slowBodies);

        _totals = keys.StrategyNames.ToFrozenDictionary(name => name, name => new StrategyTotals(name), StringComparer.Ordinal);
        Strategies = keys.StrategyNames.Select(name => _totals[name]).ToArray();

        var meter = meterFactory.Create(MeterName);
        _requestDuration = meter.CreateHistogram(
            RequestDurationName, "s", "Duration of sign requests, by strategy and outcome.", tags: null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = SecondsBuckets });
        _phaseDuration = meter.CreateHistogram(
            PhaseDurationName, "s", "Duration of each phase of a sign request (read, parse, sign), by strategy.", tags: null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = SecondsBuckets });
        _phaseAllocated = meter.CreateHistogram(
            PhaseAllocatedName, "By", "Bytes allocated on the request's thread while parsing and while signing, by strategy.", tags: null,
            new InstrumentAdvice<long> { HistogramBucketBoundaries = ByteBuckets });
        _requestAllocated = meter.CreateHistogram(
            RequestAllocatedName, "By", "Bytes allocated on the request's thread while parsing and signing, per request, by strategy and outcome.", tags: null,
            new InstrumentAdvice<long> { HistogramBucketBoundaries = ByteBuckets });
        _requestBodySize = meter.CreateHistogram(
            RequestBodySizeName, "By", "Size of sign request bodies as sent, by strategy and outcome.", tags: null,
            new InstrumentAdvice<long> { HistogramBucketBoundaries = ByteBuckets });
        _refused = meter.CreateCounter<long>(RefusedName, "{request}", "Requests refused with 503 because the in-flight memory budget was full, by strategy.");
        meter.CreateObservableCounter(
            CutForRoomName, () => slowBodies.Cut, "{request}", "Bodies cut with 408 to make room in a full in-flight budget, because they were not arriving, or too slowly for what they held.");
        meter.CreateObservableGauge(InFlightUsageName, () => budget.InUseBytes, "By", "Bytes charged to requests in flight.");
        meter.CreateObservableGauge(InFlightLimitName, () => budget.LimitBytes, "By", "The in-flight memory budget's limit.");
        meter.CreateObservableGauge(
            PoolInUseName, () => ByPool(pool.Manager.SmallPoolInUseSize, pool.Manager.LargePoolInUseSize), "By",
            "Bytes held by RecyclableMemoryStreams not yet disposed, by pool.");
        meter.CreateObservableGauge(
            PoolFreeName, () => ByPool(pool.Manager.SmallPoolFreeSize, pool.Manager.LargePoolFreeSize), "By",
            "Bytes kept free for reuse, by pool.");
        meter.CreateObservableGauge(
            PoolFreeLimitName, () => ByPool(pool.Options.MaximumSmallPoolFreeBytes, pool.Options.MaximumLargePoolFreeBytes), "By",
            "The most each free pool may keep.");
        meter.CreateObservableCounter(
            PoolEventsName,
            () => new Measurement<long>[]
            {
                new(pool.BlocksCreated, new KeyValuePair<string, object?>(PoolEventTag, "block_created")),
                new(pool.LargeBuffersCreated, new KeyValuePair<string, object?>(PoolEventTag, "large_buffer_created")),
                new(pool.BuffersDiscarded, new KeyValuePair<string, object?>(PoolEventTag, "buffer_discarded")),
                new(pool.StreamsOverCapacity, new KeyValuePair<string, object?>(PoolEventTag, "stream_over_capacity")),
                new(pool.StreamsDoubleDisposed, new KeyValuePair<string, object?>(PoolEventTag, "stream_double_disposed")),
                new(pool.StreamsFinalized, new KeyValuePair<string, object?>(PoolEventTag, "stream_finalized")),
            },
            "{event}",
            "RecyclableMemoryStream events: blocks and buffers created or discarded, streams over capacity, disposed twice or never.");
    }

    /// <summary>Each strategy's totals, in the order of <see cref="SigningKeyRing.StrategyNames"/>.</summary>
    internal IReadOnlyList<StrategyTotals> Strategies { get; }

    /// <summary>Adds one finished request of <paramref name="strategy"/>, whose body was <paramref name="bodyBytes"/> long, to the totals and the meter.</summary>
    internal void Record(string strategy, SignCost cost, TimeSpan duration, RequestOutcome outcome, long bodyBytes)
    {
        _totals[strategy].Add(cost, outcome);

        var strategyTag = new KeyValuePair<string, object?>(StrategyTag, strategy);
        var outcomeName = outcome switch
        {
            RequestOutcome.Succeeded => "success",
            RequestOutcome.Refused => "refused",
            _ => "failure",
        };
        var outcomeTag = new KeyValuePair<string, object?>(OutcomeTag, outcomeName);
        _requestDuration.Record(duration.TotalSeconds, strategyTag, outcomeTag);
        if (outcome == RequestOutcome.Refused)
        {
            _refused.Add(1, strategyTag);
        }

        if (cost.Read is { } read)
        {
            _phaseDuration.Record(read.TotalSeconds, strategyTag, new KeyValuePair<string, object?>(PhaseTag, "read"));
            _requestBodySize.Record(bodyBytes, strategyTag, outcomeTag);
        }

        if (cost.Parse is { } parse)
        {
            RecordPhase(strategyTag, "parse", parse);
            _requestAllocated.Record(parse.AllocatedBytes + (cost.Sign?.AllocatedBytes ?? 0), strategyTag, outcomeTag);
        }

        if (cost.Sign is { } sign)
        {
            RecordPhase(strategyTag, "sign", sign);
        }
    }

    private static Measurement<long>[] ByPool(long small, long large) =>
    [
        new(small, new KeyValuePair<string, object?>(PoolTag, "small")),
        new(large, new KeyValuePair<string, object?>(PoolTag, "large")),
    ];

    private void RecordPhase(KeyValuePair<string, object?> strategyTag, string phase, PhaseCost cost)
    {
        var phaseTag = new KeyValuePair<string, object?>(PhaseTag, phase);
        _phaseDuration.Record(cost.Duration.TotalSeconds, strategyTag, phaseTag);
        _phaseAllocated.Record(cost.AllocatedBytes, strategyTag, phaseTag);
    }
}
