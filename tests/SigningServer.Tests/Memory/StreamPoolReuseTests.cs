using Signing;
using Signing.Generation;
using Signing.Http.Memory;
using Signing.Strategies;

namespace SigningServer.Tests.Memory;

/// <summary>
/// With the service's default pool settings, a warm server reuses its blocks: signing the largest envelopes we
/// measure (30,000 widgets, 10.8 MB canonical) takes every block from the free pool, makes no large buffer and drops
/// nothing. The blocks live on the large object heap; what matters is that none is made again.
/// </summary>
/// <remarks>
/// Collections are not asserted here: they are process-wide, and in a test process other tests' servers, timers and
/// exporters allocate on their own schedule, so a gen 2 during these signs would say nothing about the pool. Whether
/// these signs collect past gen 0 is measured where nothing else runs: <c>SizeBenchmarks</c> at 30,000 widgets shows no
/// gen 1 and no gen 2 for <c>recyclablehash</c> (docs/benchmarks.md).
/// </remarks>
public sealed class StreamPoolReuseTests
{
    [Fact]
    public void Warm_signs_of_30000_widgets_take_every_block_from_the_free_pool()
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

        for (var i = 0; i < 5; i++)
        {
            strategy.Sign(envelope);
        }

        Assert.Equal(blocks, pool.BlocksCreated);
        Assert.Equal(0, pool.LargeBuffersCreated);
        Assert.Equal(0, pool.BuffersDiscarded);
        Assert.Equal(0, pool.InUseBytes);
    }
}
