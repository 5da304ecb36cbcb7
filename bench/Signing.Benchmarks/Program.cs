using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;

namespace Signing.Benchmarks;

/// <summary>
/// Runs the benchmarks with BenchmarkDotNet's usual command line (<c>--filter</c>, <c>--list</c>, …) plus
/// <c>--quick</c>, which swaps the default job, accurate but slow, for BenchmarkDotNet's short-run job so that an
/// everyday check takes minutes. Commands and the reading of the results: docs/benchmarks.md.
/// </summary>
public static class Program
{
    private const string QuickSwitch = "--quick";

    /// <summary>Entry point.</summary>
    public static void Main(string[] args)
    {
        var quick = args.Contains(QuickSwitch, StringComparer.OrdinalIgnoreCase);
        var job = quick ? Job.ShortRun : Job.Default;
        var config = DefaultConfig.Instance.AddJob(job.AsDefault());
        var benchmarkDotNetArgs = args.Where(a => !string.Equals(a, QuickSwitch, StringComparison.OrdinalIgnoreCase)).ToArray();
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(benchmarkDotNetArgs, config);
    }
}
