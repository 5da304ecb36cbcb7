using Signing;
using Signing.Generation;
using Signing.Http.Memory;
using Signing.Strategies;

namespace SigningServer.Tests;

/// <summary>Runs alone: what it asserts about collections is process-wide and any test running beside it would move it.</summary>
[CollectionDefinition(nameof(ProcessWideGcCounts), DisableParallelization = true)]
public sealed class ProcessWideGcCounts;

/// <summary>
/// With the service's default pool settings, a warm server reuses its blocks: signing the largest envelopes we
/// measure (30,000 widgets, 10.8 MB canonical) takes every block from the free pool and causes no gen 2 collection.
/// The blocks live on the large object heap; what matters is that none is made again.
/// </summary>
/// <remarks>
/// Gen 1 is not asserted here: Newtonsoft's 4.6 MB of short-lived garbage per sign meets whatever the tests before
/// this one left in gen 0, so an occasional gen 1 in a test process says nothing about the pool. Its rate is measured
/// where nothing else runs, in <c>SizeBenchmarks</c> (docs/benchmarks.md).
/// </remarks>
[Collection(nameof(ProcessWideGcCounts))]
public sealed class StreamPoolReuseTests
{
    [Fact]
    public void Warm_signs_of_30000_widgets_create_no_blocks_and_no_gen2_collections()
    {
        var pool = new StreamPool(StreamPoolSettings.DefaultOptions());
        var strategy = SigningStrategies.CreateBuiltIn(new SigningKey("0123456789abcdef0123456789abcdef"u8), pool.Manager)[RecyclableHashSigner.StrategyName];
        var envelope = EnvelopeGenerator.Create(30_000, 42);
        for (var i = 0; i < 3; i++)
        {
            strategy.Sign(envelope);
        }

        var blocks = pool.BlocksCreated;
        Assert.True(blocks >= 80, $"{blocks} blocks for a 10.8 MB document");

        var gen2 = GC.CollectionCount(2);
        for (var i = 0; i < 5; i++)
        {
            strategy.Sign(envelope);
        }

        Assert.Equal(blocks, pool.BlocksCreated);
        Assert.Equal(0, pool.LargeBuffersCreated);
        Assert.Equal(0, pool.BuffersDiscarded);
        Assert.Equal(0, pool.InUseBytes);
        Assert.Equal(gen2, GC.CollectionCount(2));
    }
}
