using System.Security.Cryptography;
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

    // Pinned, so that benchmark and load data cannot change unnoticed: a snapshot of our own output, not a known answer
    // (the known answers are in KnownAnswerTests). Each length and SHA-256 is Python's (hashlib) over a file of the
    // canonical bytes the generator wrote once; 3,000 widgets with seed 1 is what
    // 'dotnet run --project src/Signing.Payload -- --widgets 3000' writes, the README's payload-3000.json.
    [Theory]
    [InlineData(30, 7, GeneratedText.Plain, 10_829, "c32534f8f64b8fe904d60f219353b65629321b3ca0f127a9e0fc5c0e812cbf06")]
    [InlineData(30, 7, GeneratedText.Awkward, 16_952, "1df20a934fae00539b4040889e7134ffd670204e528ac52052742701914c1762")]
    [InlineData(3000, 1, GeneratedText.Plain, 1_082_032, "dd8a022fdfbcded2fdea7c89326e7abc4fb709ad6dbd001e1919731454f39825")]
    public void A_fixed_count_and_seed_give_the_pinned_bytes(int count, int seed, GeneratedText text, int length, string sha256)
    {
        var bytes = TestData.CanonicalBytes(EnvelopeGenerator.Create(count, seed, text));

        Assert.Equal(length, bytes.Length);
        Assert.Equal(sha256, Convert.ToHexStringLower(SHA256.HashData(bytes)));
    }

    // The same pin in a form that says which part moved: the first values of seed 7, as the generator made them once.
    [Fact]
    public void The_first_widgets_of_seed_7_are_pinned()
    {
        var plain = EnvelopeGenerator.Create(2, seed: 7, GeneratedText.Plain).Widgets;
        var awkward = EnvelopeGenerator.Create(2, seed: 7, GeneratedText.Awkward).Widgets;

        Assert.Equal(new Guid("f604634b-6295-68e1-ff41-99ea1fb201b0"), plain[0].Id);
        Assert.Equal(new Guid("98cab457-469d-6160-f7c4-542d179b9657"), plain[1].Id);
        Assert.Equal("U1BujKdXB7BdsvSG", plain[0].Property0);
        Assert.Equal("FEzJh52oH", plain[0].Property1);
        Assert.Equal("eCdl5c17JenX", plain[1].Property0);
        Assert.Equal(new DateTime(2024, 1, 31, 22, 46, 3, 58, DateTimeKind.Utc), plain[0].CreatedUtc);
        Assert.Equal(new DateTime(2024, 1, 10, 23, 43, 19, DateTimeKind.Utc), plain[1].CreatedUtc);

        // Awkward text draws as many random numbers as plain, so only the strings differ.
        Assert.Equal(plain.Select(w => (w.Id, w.CreatedUtc)), awkward.Select(w => (w.Id, w.CreatedUtc)));
        Assert.Equal("\0\U0001F600a\u2028\u007f\\\r\ba\ud800a\r\u4e2d\u2029> ", awkward[0].Property0);
        Assert.Equal("\tZ\r\u00a0\U0010FFFF\r\U0001F600\ud800\\\t\u00e9\b", awkward[1].Property0);
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
