using BenchmarkDotNet.Attributes;
using Signing.Strategies;
using Signing.Transcoding;

namespace Signing.Benchmarks;

/// <summary>
/// Question 6: what checking widgets in canonical layout costs on its own, without the HMAC, the pipe or the tokenizer
/// around it. <c>transcode</c> copies a loaded server's body into the hash's chunk a stage at a time and walks each
/// stage with <see cref="CanonicalRun"/>, so the walk's price is the stages copied and walked less the same stages only
/// copied. The walk is what <c>transcode</c> spends beyond the wire floor, and it depends on the processor far more
/// than the HMAC does (docs/load-test.md, "The floor: signing at wire speed"): read it first on a new machine.
/// </summary>
[MemoryDiagnoser]
public class WalkBenchmarks
{
    // The hash's chunk, which the transcoder stages widgets in (what is left of it at the time); here a whole one each.
    private readonly byte[] _stage = new byte[Utf8Signer.ChunkBytes];
    private byte[] _body = null!;

    // Where each stage starts in the body (at a widget's opening brace) and how many bytes it takes, as the walk ends
    // them: at the last widget that the stage holds whole.
    private (int Start, int Length)[] _stages = null!;

    /// <summary>Writes the write-up's body and finds its stages outside the measurement.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _body = BenchmarkInputs.CanonicalBytes(BenchmarkInputs.CreateEnvelope(BenchmarkInputs.WriteUpWidgetCount));
        var stages = new List<(int, int)>();
        var widgets = 0;
        for (var start = _body.AsSpan().IndexOf("{\"id\""u8); start < _body.Length && _body[start] == '{';)
        {
            var length = Math.Min(_stage.Length, _body.Length - start);
            stages.Add((start, length));
            var run = CanonicalRun.Measure(_body.AsSpan(start, length), int.MaxValue, afterCut: true, out var found, out _);
            widgets += found;

            // The comma after the run's last widget, then the next widget.
            start += run + 1;
        }

        // The walk must take every widget, or the benchmark would price less than a body's check.
        if (widgets != BenchmarkInputs.WriteUpWidgetCount)
        {
            throw new InvalidOperationException($"The walk took {widgets} widgets of {BenchmarkInputs.WriteUpWidgetCount}.");
        }

        _stages = [.. stages];
    }

    /// <summary>The body's stages copied into the chunk, as <c>transcode</c> copies them, and nothing else.</summary>
    [Benchmark(Baseline = true, Description = "copy in 16 KiB stages")]
    public int Copy()
    {
        var copied = 0;
        foreach (var (start, length) in _stages)
        {
            _body.AsSpan(start, length).CopyTo(_stage);
            copied += _stage[length - 1];
        }

        return copied;
    }

    /// <summary>The same stages copied and walked: every widget's layout, Guid, instant and bytes checked.</summary>
    [Benchmark(Description = "copy and walk")]
    public int CopyAndWalk()
    {
        var widgets = 0;
        foreach (var (start, length) in _stages)
        {
            _body.AsSpan(start, length).CopyTo(_stage);
            CanonicalRun.Measure(_stage.AsSpan(0, length), int.MaxValue, afterCut: true, out var found, out _);
            widgets += found;
        }

        return widgets;
    }
}
