using System.Collections.Frozen;
using System.Diagnostics.Metrics;
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

    /// <summary>Gauge, bytes: rented from the buffer pool and not yet returned.</summary>
    public const string PoolInUseName = "signing.buffer_pool.in_use";

    /// <summary>Gauge, bytes: the most the pool's free buffers can hold (its configured bound, not a reading).</summary>
    public const string PoolFreeLimitName = "signing.buffer_pool.free.limit";

    /// <summary>The tag holding the strategy's canonical name.</summary>
    public const string StrategyTag = "signing.strategy";

    /// <summary>The tag holding <c>success</c> (a 200) or <c>failure</c> (anything else).</summary>
    public const string OutcomeTag = "signing.outcome";

    /// <summary>The tag holding the phase's name.</summary>
    public const string PhaseTag = "signing.phase";

    // Durations from a tenth of a millisecond (a small envelope's parse) to seconds (a big one on a saturated server).
    private static readonly double[] SecondsBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

    // Powers of four from 1 KiB to 64 MiB: the 3,000-widget envelope's string strategy allocates several MB per sign.
    private static readonly long[] ByteBuckets = [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26];

    private readonly FrozenDictionary<string, StrategyTotals> _totals;
    private readonly Histogram<double> _requestDuration;
    private readonly Histogram<double> _phaseDuration;
    private readonly Histogram<long> _phaseAllocated;
    private readonly Histogram<long> _requestAllocated;
    private readonly Histogram<long> _requestBodySize;

    /// <summary>Creates the meter through <paramref name="meterFactory"/>, so it is scoped to, and disposed with, the host.</summary>
    public SigningTelemetry(IMeterFactory meterFactory, SigningStrategies strategies, BufferPool pool)
    {
        ArgumentNullException.ThrowIfNull(meterFactory);
        ArgumentNullException.ThrowIfNull(strategies);
        ArgumentNullException.ThrowIfNull(pool);

        _totals = strategies.Names.ToFrozenDictionary(name => name, name => new StrategyTotals(name), StringComparer.Ordinal);
        Strategies = strategies.Names.Select(name => _totals[name]).ToArray();

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
        meter.CreateObservableGauge(PoolInUseName, () => pool.InUseBytes, "By", "Bytes rented from the buffer pool and not yet returned.");
        meter.CreateObservableGauge(PoolFreeLimitName, () => pool.Options.MaximumFreeBytes, "By", "The most the buffer pool's free buffers can hold.");
    }

    /// <summary>Each strategy's totals, in the order of <see cref="SigningStrategies.Names"/>.</summary>
    internal IReadOnlyList<StrategyTotals> Strategies { get; }

    /// <summary>Adds one finished request of <paramref name="strategy"/>, whose body was <paramref name="bodyBytes"/> long, to the totals and the meter.</summary>
    internal void Record(string strategy, SignCost cost, TimeSpan duration, bool succeeded, long bodyBytes)
    {
        _totals[strategy].Add(cost, succeeded);

        var strategyTag = new KeyValuePair<string, object?>(StrategyTag, strategy);
        var outcomeTag = new KeyValuePair<string, object?>(OutcomeTag, succeeded ? "success" : "failure");
        _requestDuration.Record(duration.TotalSeconds, strategyTag, outcomeTag);
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

    private void RecordPhase(KeyValuePair<string, object?> strategyTag, string phase, PhaseCost cost)
    {
        var phaseTag = new KeyValuePair<string, object?>(PhaseTag, phase);
        _phaseDuration.Record(cost.Duration.TotalSeconds, strategyTag, phaseTag);
        _phaseAllocated.Record(cost.AllocatedBytes, strategyTag, phaseTag);
    }
}
