using Signing.Generation;
using Signing.Strategies;

namespace Signing.Tests.Strategies;

/// <summary>
/// The new strategies borrow blocks or buffers from a pool and HMAC state from the thread. Both must come back after every
/// sign, and state a failed sign left half fed must never reach the next sign.
/// </summary>
public sealed class NewStrategyHygieneTests
{
    private static readonly SigningKey Key = new("0123456789abcdef0123456789abcdef"u8);

    public static TheoryData<string> NewStrategies() => [RecyclableHashSigner.StrategyName, StreamingSigner.StrategyName, Utf8Signer.StrategyName];

    [Theory]
    [MemberData(nameof(NewStrategies))]
    public void Nothing_stays_rented_after_signs_of_any_size(string name)
    {
        var pool = TestData.CreateStreams();
        var strategy = SigningStrategies.CreateBuiltIn(Key, pool)[name];

        foreach (var count in new[] { 0, 1, 30, 3_000 })
        {
            strategy.Sign(EnvelopeGenerator.Create(count, count, GeneratedText.Awkward));
            Assert.Equal(0, TestData.InUseBytes(pool));
        }

        var envelope = EnvelopeGenerator.Create(300, 1);
        Parallel.For(0, 64, _ => strategy.Sign(envelope));
        Assert.Equal(0, TestData.InUseBytes(pool));
    }

    [Theory]
    [MemberData(nameof(NewStrategies))]
    public void A_failed_sign_returns_what_it_rented_and_does_not_change_the_next_signature(string name)
    {
        var pool = TestData.CreateStreams();
        var strategies = SigningStrategies.CreateBuiltIn(Key, pool);
        var strategy = strategies[name];
        var widgets = EnvelopeGenerator.Create(400, 5, GeneratedText.Awkward).Widgets;
        var good = new WidgetEnvelope { Widgets = widgets };
        var expected = strategies[StringSigner.StrategyName].Sign(good);

        // Widget 300 is well past the first chunks, so the failed sign has already fed the hash.
        foreach (var failAt in new[] { 0, 300 })
        {
            Assert.Equal(expected, strategy.Sign(good));
            var failing = new WidgetEnvelope { Widgets = new FailingWidgetList(widgets, failAt) };
            Assert.Throws<InvalidOperationException>(() => strategy.Sign(failing));
            Assert.Equal(0, TestData.InUseBytes(pool));
            Assert.Equal(expected, strategy.Sign(good));
        }
    }

    [Theory]
    [MemberData(nameof(NewStrategies))]
    public void Alternating_keys_on_one_thread_each_sign_with_their_own(string name)
    {
        var other = new SigningKey("fedcba9876543210fedcba9876543210"u8);
        var pool = TestData.CreateStreams();
        var envelope = EnvelopeGenerator.Create(50, 9);
        var first = SigningStrategies.CreateBuiltIn(Key, pool);
        var second = SigningStrategies.CreateBuiltIn(other, pool);
        var expectedFirst = first[StringSigner.StrategyName].Sign(envelope);
        var expectedSecond = second[StringSigner.StrategyName].Sign(envelope);

        for (var i = 0; i < 3; i++)
        {
            Assert.Equal(expectedFirst, first[name].Sign(envelope));
            Assert.Equal(expectedSecond, second[name].Sign(envelope));
        }
    }
}
