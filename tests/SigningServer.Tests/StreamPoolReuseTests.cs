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
/// measure (30,000 widgets, 10.8 MB canonical) takes every block from the free pool and collects nothing past gen 0.
/// The blocks live on the large object heap; what matters is that none is made again.
/// </summary>
[Collection(nameof(ProcessWideGcCounts))]
public sealed class StreamPoolReuseTests
{
    [Fact]
    public void Warm_signs_of_30000_widgets_create_no_blocks_and_no_gen1_or_gen2_collections()
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

        var (gen1, gen2) = (GC.CollectionCount(1), GC.CollectionCount(2));
        for (var i = 0; i < 5; i++)
        {
            strategy.Sign(envelope);
        }

        Assert.Equal(blocks, pool.BlocksCreated);
        Assert.Equal(0, pool.LargeBuffersCreated);
        Assert.Equal(0, pool.BuffersDiscarded);
        Assert.Equal(0, pool.InUseBytes);
        Assert.Equal((gen1, gen2), (GC.CollectionCount(1), GC.CollectionCount(2)));
    }
}
