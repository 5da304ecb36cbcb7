namespace Signing.Benchmarks;

/// <summary>
/// Question 1: the write-up's table on today's runtime. Every strategy signs 3,000 plain widgets (about 1.1 MB), the
/// size the write-up measured on .NET Core 3.1.
/// </summary>
public class StrategyBenchmarks : StrategyBenchmarksBase
{
    /// <inheritdoc/>
    protected override int WidgetCount => BenchmarkInputs.WriteUpWidgetCount;
}
