using Signing;
using Signing.Generation;

namespace Signing.Tests;

/// <summary>
/// Generated envelopes are reproducible, so tests, benchmarks and load tests sign the same data everywhere, and the
/// benchmark size is the write-up's.
/// </summary>
public sealed class EnvelopeGeneratorTests
{
    [Theory]
    [InlineData(0, 0, GeneratedText.Plain)]
    [InlineData(1, 42, GeneratedText.Plain)]
    [InlineData(300, 7, GeneratedText.Plain)]
    [InlineData(1, 42, GeneratedText.Awkward)]
    [InlineData(300, 7, GeneratedText.Awkward)]
    public void Same_count_and_seed_give_identical_canonical_bytes(int count, int seed, GeneratedText text)
    {
        var first = TestData.CanonicalBytes(EnvelopeGenerator.Create(count, seed, text));
        var second = TestData.CanonicalBytes(EnvelopeGenerator.Create(count, seed, text));

        Assert.Equal(first, second);
    }

    [Theory]
    [InlineData(GeneratedText.Plain)]
    [InlineData(GeneratedText.Awkward)]
    public void Different_seeds_give_different_envelopes(GeneratedText text)
    {
        var distinct = Enumerable.Range(0, 50)
            .Select(seed => Convert.ToBase64String(TestData.CanonicalBytes(EnvelopeGenerator.Create(1, seed, text))))
            .Distinct(StringComparer.Ordinal)
            .Count();

        Assert.Equal(50, distinct);
    }

    [Fact]
    public void Plain_and_awkward_text_differ_for_the_same_seed()
    {
        var plain = EnvelopeGenerator.Create(5, seed: 3, GeneratedText.Plain);
        var awkward = EnvelopeGenerator.Create(5, seed: 3, GeneratedText.Awkward);

        Assert.NotEqual(TestData.CanonicalBytes(plain), TestData.CanonicalBytes(awkward));
        Assert.All(plain.Widgets, w => Assert.True(w.Property0.All(char.IsAsciiLetterOrDigit), w.Property0));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(3000)]
    public void Count_is_the_number_of_widgets(int count)
    {
        Assert.Equal(count, EnvelopeGenerator.Create(count, seed: 0).Widgets.Count);
    }

    [Fact]
    public void Negative_count_is_refused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => EnvelopeGenerator.Create(-1, seed: 0));
    }

    [Fact]
    public void Three_thousand_plain_widgets_are_about_1_1_MB()
    {
        var bytes = TestData.CanonicalBytes(EnvelopeGenerator.Create(3000, seed: 0, GeneratedText.Plain)).LongLength;

        Assert.InRange(bytes, 1_000_000, 1_200_000);
    }

    [Fact]
    public void Generated_instants_are_UTC()
    {
        // Anything else would make the signed bytes depend on the machine's zone.
        Assert.All(EnvelopeGenerator.Create(100, seed: 9).Widgets, w => Assert.Equal(DateTimeKind.Utc, w.CreatedUtc.Kind));
    }
}
