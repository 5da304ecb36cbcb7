using Microsoft.IO;
using Newtonsoft.Json;
using Signing.Generation;
using Signing.Strategies;

namespace Signing.Tests;

/// <summary>
/// The recyclable strategies give back every block they take, on success and on failure, so the manager's bytes in
/// use return to zero between signs; a count stuck above zero is a leak.
/// </summary>
public sealed class StreamPoolTests
{
    public static TheoryData<string> RecyclableStrategies() => [RecyclableStreamSigner.StrategyName, RecyclableHashSigner.StrategyName];

    [Fact]
    public void In_use_counts_a_stream_until_it_is_disposed()
    {
        // Shows the count moves, so the zero checks below are not checks of a constant.
        var streams = TestData.CreateStreams();
        var stream = streams.GetStream();
        stream.Write(new byte[300_000]);
        Assert.True(TestData.InUseBytes(streams) >= 300_000, $"In use: {TestData.InUseBytes(streams)} bytes.");

        stream.Dispose();
        Assert.Equal(0, TestData.InUseBytes(streams));
    }

    [Theory]
    [MemberData(nameof(RecyclableStrategies))]
    public void Many_successful_signs_return_every_block(string name)
    {
        var streams = TestData.CreateStreams();
        var strategy = TestData.CreateStrategies(streams)[name];

        // Sizes from empty to many blocks, so streams grow block by block on the way.
        for (var i = 0; i < 60; i++)
        {
            strategy.Sign(EnvelopeGenerator.Create(i * 37, seed: i, i % 2 == 0 ? GeneratedText.Plain : GeneratedText.Awkward));
            Assert.Equal(0, TestData.InUseBytes(streams));
        }
    }

    [Theory]
    [MemberData(nameof(RecyclableStrategies))]
    public void Signs_that_fail_midway_return_every_block(string name)
    {
        var streams = TestData.CreateStreams();
        var strategy = TestData.CreateStrategies(streams)[name];

        for (var i = 0; i < 50; i++)
        {
            // Valid widgets first, so the failure comes after the stream has been written to (and, for the larger
            // ones, grown past a block); then one the serializer refuses because a required property is null.
            var widgets = EnvelopeGenerator.Create(i * 40, seed: i).Widgets.Append(TestData.Widget(property5: null!)).ToList();
            var envelope = new WidgetEnvelope { Widgets = widgets };

            Assert.Throws<JsonSerializationException>(() => strategy.Sign(envelope));
            Assert.Equal(0, TestData.InUseBytes(streams));

            strategy.Sign(EnvelopeGenerator.Create(i, seed: i));
            Assert.Equal(0, TestData.InUseBytes(streams));
        }
    }

    [Theory]
    [MemberData(nameof(RecyclableStrategies))]
    public void A_document_larger_than_a_block_is_signed_from_several_blocks(string name)
    {
        // Small blocks put block boundaries everywhere in the document, including inside escapes and multi-byte
        // characters; the signature must not notice.
        var streams = new RecyclableMemoryStreamManager(new RecyclableMemoryStreamManager.Options
        {
            BlockSize = 1024,
            LargeBufferMultiple = 1024 * 1024,
            MaximumSmallPoolFreeBytes = 1024 * 1024,
            MaximumLargePoolFreeBytes = 1024 * 1024,
        });
        var envelope = EnvelopeGenerator.Create(200, seed: 11, GeneratedText.Awkward);
        var expected = TestData.CreateStrategies()[StringSigner.StrategyName].Sign(envelope);

        var result = TestData.CreateStrategies(streams)[name].Sign(envelope);

        Assert.True(result.BytesSigned > 20 * 1024);
        Assert.Equal(expected, result);
        Assert.Equal(0, TestData.InUseBytes(streams));
    }

    [Fact]
    public void Every_strategy_rejects_a_widget_with_a_null_property()
    {
        // The failure used above is a failure of serialization, not something peculiar to the recyclable strategies;
        // a strategy that signed this envelope would be signing bytes the others cannot produce.
        var strategies = TestData.CreateStrategies();
        var envelope = new WidgetEnvelope { Widgets = [TestData.Widget(property5: null!)] };

        Assert.All(strategies.Names, name => Assert.ThrowsAny<Exception>(() => strategies[name].Sign(envelope)));
    }
}
