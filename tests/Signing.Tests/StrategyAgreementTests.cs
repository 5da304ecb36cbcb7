using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;

namespace Signing.Tests;

/// <summary>
/// Every strategy signs the same bytes: the same signature and byte count for any envelope, whatever its text. The
/// independent known answer is <see cref="KnownAnswerTests"/>; the HMAC computed here is a cross-check over many inputs.
/// </summary>
public sealed partial class StrategyAgreementTests
{
    private const int SeedsPerCase = 12;

    public static TheoryData<GeneratedText, int> Cases()
    {
        var cases = new TheoryData<GeneratedText, int>();
        foreach (var text in new[] { GeneratedText.Plain, GeneratedText.Awkward })
        {
            foreach (var count in new[] { 0, 1, 2, 7, 300 })
            {
                cases.Add(text, count);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void All_strategies_return_the_same_signature_and_byte_count(GeneratedText text, int count)
    {
        var strategies = TestData.CreateStrategies();
        Assert.True(strategies.Names.Count >= 2, "Agreement needs at least two strategies to compare.");

        for (var seed = 0; seed < SeedsPerCase; seed++)
        {
            var envelope = EnvelopeGenerator.Create(count, seed, text);
            var results = strategies.Names.Select(name => (Name: name, Result: strategies[name].Sign(envelope))).ToList();

            var first = results[0];
            Assert.All(results, r => Assert.True(
                r.Result == first.Result,
                $"seed {seed}: '{r.Name}' gave {r.Result} but '{first.Name}' gave {first.Result}"));
        }
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Signature_matches_an_HMAC_over_the_UTF8_of_the_serialized_string(GeneratedText text, int count)
    {
        var strategies = TestData.CreateStrategies();

        for (var seed = 0; seed < SeedsPerCase; seed++)
        {
            var envelope = EnvelopeGenerator.Create(count, seed, text);
            var bytes = Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(envelope, CanonicalJson.Settings));
            var expected = new SignResult(Convert.ToHexStringLower(HMACSHA256.HashData(TestData.KeyBytes, bytes)), bytes.Length);

            foreach (var name in strategies.Names)
            {
                Assert.Equal(expected, strategies[name].Sign(envelope));
            }
        }
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Signatures_are_64_lowercase_hex_characters(GeneratedText text, int count)
    {
        var strategies = TestData.CreateStrategies();
        var envelope = EnvelopeGenerator.Create(count, seed: 1, text);

        foreach (var name in strategies.Names)
        {
            Assert.Matches(LowercaseHex64(), strategies[name].Sign(envelope).Signature);
        }
    }

    [Fact]
    public void Different_envelopes_get_different_signatures()
    {
        // Shows the agreement above is not agreement on a constant.
        var strategies = TestData.CreateStrategies();

        foreach (var name in strategies.Names)
        {
            var signatures = Enumerable.Range(0, 20)
                .Select(seed => strategies[name].Sign(EnvelopeGenerator.Create(3, seed, GeneratedText.Awkward)).Signature)
                .ToHashSet(StringComparer.Ordinal);

            Assert.Equal(20, signatures.Count);
        }
    }

    [GeneratedRegex("^[0-9a-f]{64}$", RegexOptions.CultureInvariant)]
    private static partial Regex LowercaseHex64();
}
