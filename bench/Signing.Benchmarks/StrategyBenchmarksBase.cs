using BenchmarkDotNet.Attributes;
using Signing.Strategies;

namespace Signing.Benchmarks;

/// <summary>
/// One benchmark per strategy, each signing the same envelope through the strategy the service would use, with
/// <c>string</c> (the write-up's first approach) as the baseline every ratio is taken against. The questions differ
/// only in the envelopes they sign, which the derived classes choose.
/// </summary>
[MemoryDiagnoser]
public abstract class StrategyBenchmarksBase
{
    private SigningStrategies _strategies = null!;
    private WidgetEnvelope _envelope = null!;

    /// <summary>How many widgets the envelope under test holds.</summary>
    protected abstract int WidgetCount { get; }

    /// <summary>Builds the envelope and strategies outside the measurement.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _strategies = BenchmarkInputs.CreateStrategies();
        _envelope = BenchmarkInputs.CreateEnvelope(WidgetCount);
    }

    /// <summary>The write-up's first approach: the whole document as a string, then as bytes.</summary>
    [Benchmark(Baseline = true, Description = StringSigner.StrategyName)]
    public SignResult StringSign() => Sign(StringSigner.StrategyName);

    /// <summary>The write-up's second approach: a new <see cref="System.IO.MemoryStream"/> per sign.</summary>
    [Benchmark(Description = MemoryStreamSigner.StrategyName)]
    public SignResult MemoryStreamSign() => Sign(MemoryStreamSigner.StrategyName);

    /// <summary>The write-up's third approach: a pooled <see cref="Microsoft.IO.RecyclableMemoryStream"/>.</summary>
    [Benchmark(Description = RecyclableStreamSigner.StrategyName)]
    public SignResult RecyclableSign() => Sign(RecyclableStreamSigner.StrategyName);

    /// <summary>The recyclable stream's blocks hashed in place with a reused HMAC and hexed once.</summary>
    [Benchmark(Description = RecyclableHashSigner.StrategyName)]
    public SignResult RecyclableHashSign() => Sign(RecyclableHashSigner.StrategyName);

    /// <summary>Newtonsoft writing straight into the HMAC, no document buffer.</summary>
    [Benchmark(Description = StreamingSigner.StrategyName)]
    public SignResult StreamingSign() => Sign(StreamingSigner.StrategyName);

    /// <summary>Canonical UTF-8 written directly, hashed chunk by chunk.</summary>
    [Benchmark(Description = Utf8Signer.StrategyName)]
    public SignResult Utf8Sign() => Sign(Utf8Signer.StrategyName);

    // The lookup is a frozen-dictionary read, the same for every row, and it is what a request pays too.
    private SignResult Sign(string name) => _strategies[name].Sign(_envelope);
}
