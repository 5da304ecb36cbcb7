using BenchmarkDotNet.Attributes;

namespace Signing.Benchmarks;

/// <summary>
/// Question 2: how each strategy scales. 30 widgets (about 11 KB) stay under the 85,000-byte large object heap
/// threshold; from 300 widgets (about 108 KB) up, every whole-document array or string a strategy allocates lands
/// on that heap and is only collected with generation 2, which is what the Gen2 column shows.
/// </summary>
public class SizeBenchmarks : StrategyBenchmarksBase
{
    /// <summary>Widgets per envelope: a decade apart, straddling the threshold between the first two.</summary>
    [Params(30, 300, 3_000, 30_000)]
    public int Widgets { get; set; }

    /// <inheritdoc/>
    protected override int WidgetCount => Widgets;
}
