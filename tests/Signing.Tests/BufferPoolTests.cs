using System.Buffers;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;
using Signing.Strategies;

namespace Signing.Tests;

/// <summary>
/// The pooled strategy gives back every byte it rents, on success and on failure, so <see cref="BufferPool.InUseBytes"/>
/// returns to zero between signs; a counter stuck above zero is a leak.
/// </summary>
public sealed class BufferPoolTests
{
    [Fact]
    public void InUseBytes_counts_a_rented_writer_until_it_is_disposed()
    {
        // Shows the counter moves, so the zero checks below are not checks of a constant.
        var pool = new BufferPool(new PooledBufferOptions());
        Assert.Equal(0, pool.InUseBytes);

        var writer = pool.RentWriter();
        Assert.True(pool.InUseBytes >= pool.Options.InitialCapacityBytes, $"Rented {pool.InUseBytes} bytes.");

        writer.Dispose();
        Assert.Equal(0, pool.InUseBytes);
    }

    [Fact]
    public void InUseBytes_follows_a_writer_as_it_grows()
    {
        var pool = new BufferPool(new PooledBufferOptions { InitialCapacityBytes = 256 });
        using (var writer = pool.RentWriter())
        {
            var small = pool.InUseBytes;
            writer.Write(new byte[100_000]);
            Assert.True(pool.InUseBytes > small, $"In use went from {small} to {pool.InUseBytes} bytes.");
            Assert.True(pool.InUseBytes >= 100_000);
        }

        Assert.Equal(0, pool.InUseBytes);
    }

    [Fact]
    public void Many_successful_pooled_signs_return_every_byte()
    {
        var pool = new BufferPool(new PooledBufferOptions { InitialCapacityBytes = 1024 });
        var pooled = TestData.CreateStrategies(pool)[PooledBufferSigner.StrategyName];

        // Sizes from empty to well past the initial buffer, so the writer grows and hands back old buffers on the way.
        for (var i = 0; i < 60; i++)
        {
            pooled.Sign(EnvelopeGenerator.Create(i * 7, seed: i, i % 2 == 0 ? GeneratedText.Plain : GeneratedText.Awkward));
            Assert.Equal(0, pool.InUseBytes);
        }
    }

    [Fact]
    public void Signs_larger_than_the_largest_pooled_array_return_every_byte()
    {
        var pool = new BufferPool(new PooledBufferOptions { InitialCapacityBytes = 4096, MaximumArrayLength = 4096 });
        var pooled = TestData.CreateStrategies(pool)[PooledBufferSigner.StrategyName];

        var result = pooled.Sign(EnvelopeGenerator.Create(200, seed: 3));

        Assert.True(result.BytesSigned > 4096);
        Assert.Equal(0, pool.InUseBytes);
    }

    [Fact]
    public void Signs_that_fail_midway_return_every_byte()
    {
        var pool = new BufferPool(new PooledBufferOptions { InitialCapacityBytes = 1024 });
        var pooled = TestData.CreateStrategies(pool)[PooledBufferSigner.StrategyName];

        for (var i = 0; i < 50; i++)
        {
            // Valid widgets first, so the failure comes after the buffer has been written to (and, for the larger
            // ones, grown); then one the serializer refuses because a required property is null.
            var widgets = EnvelopeGenerator.Create(i * 5, seed: i).Widgets.Append(TestData.Widget(property5: null!)).ToList();
            var envelope = new WidgetEnvelope { Widgets = widgets };

            Assert.Throws<JsonSerializationException>(() => pooled.Sign(envelope));
            Assert.Equal(0, pool.InUseBytes);

            pooled.Sign(EnvelopeGenerator.Create(i, seed: i));
            Assert.Equal(0, pool.InUseBytes);
        }
    }

    [Fact]
    public void Every_strategy_rejects_a_widget_with_a_null_property()
    {
        // The failure used above is a failure of serialization, not something peculiar to the pooled strategy; a
        // strategy that signed this envelope would be signing bytes the others cannot produce.
        var strategies = TestData.CreateStrategies();
        var envelope = new WidgetEnvelope { Widgets = [TestData.Widget(property5: null!)] };

        Assert.All(strategies.Names, name => Assert.ThrowsAny<Exception>(() => strategies[name].Sign(envelope)));
    }
}
