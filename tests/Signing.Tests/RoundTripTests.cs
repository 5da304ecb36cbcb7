using System.Text;
using Signing;
using Signing.Generation;

namespace Signing.Tests;

/// <summary>
/// Canonical output parsed back and signed again gives the same signature: a client that re-sends what it received
/// gets the signature it was given.
/// </summary>
/// <remarks>
/// Lone surrogates are the one thing that does not survive as text: UTF-8 cannot encode them, so the canonical bytes
/// carry U+FFFD (EF BF BD) in their place and the parsed string has U+FFFD where the original had the lone half. The
/// bytes, and so the signature, are unchanged by the round trip because the original was already signed as U+FFFD;
/// after the first pass the strings are stable as well.
/// </remarks>
public sealed class RoundTripTests
{
    public static TheoryData<GeneratedText> Texts() => [GeneratedText.Plain, GeneratedText.Awkward];

    [Theory]
    [MemberData(nameof(Texts))]
    public void Parsed_canonical_output_reserializes_to_the_same_bytes_and_signature(GeneratedText text)
    {
        var strategies = TestData.CreateStrategies();

        foreach (var (count, seed) in new[] { (0, 0), (1, 1), (5, 2), (40, 3), (250, 4) })
        {
            var original = EnvelopeGenerator.Create(count, seed, text);
            var canonical = TestData.CanonicalBytes(original);

            var reparsed = TestData.Parse(canonical);

            Assert.Equal(canonical, TestData.CanonicalBytes(reparsed));
            foreach (var name in strategies.Names)
            {
                Assert.Equal(strategies[name].Sign(original), strategies[name].Sign(reparsed));
            }
        }
    }

    [Theory]
    [MemberData(nameof(Texts))]
    public void Parsed_widgets_equal_the_originals_once_lone_surrogates_are_replaced(GeneratedText text)
    {
        var original = EnvelopeGenerator.Create(200, seed: 5, text);

        var reparsed = TestData.Parse(TestData.CanonicalBytes(original));

        Assert.Equal(original.Widgets.Count, reparsed.Widgets.Count);
        for (var i = 0; i < original.Widgets.Count; i++)
        {
            var before = original.Widgets[i];
            var after = reparsed.Widgets[i];
            Assert.Equal(before.Id, after.Id);
            Assert.Equal(before.CreatedUtc, after.CreatedUtc);
            Assert.Equal(DateTimeKind.Utc, after.CreatedUtc.Kind);
            Assert.Equal(Strings(before).Select(ReplaceLoneSurrogates), Strings(after));
        }
    }

    [Fact]
    public void Awkward_data_really_contains_lone_surrogates()
    {
        // Otherwise the replacement the tests above allow for would never be exercised.
        var envelope = EnvelopeGenerator.Create(200, seed: 5, GeneratedText.Awkward);

        Assert.Contains(envelope.Widgets.SelectMany(Strings), s => !string.Equals(s, ReplaceLoneSurrogates(s), StringComparison.Ordinal));
    }

    [Fact]
    public void Lone_surrogate_becomes_U_FFFD_and_is_signed_as_U_FFFD_from_the_start()
    {
        var strategies = TestData.CreateStrategies();
        var lone = new WidgetEnvelope { Widgets = [TestData.Widget(property0: "a\uD800b\uDFFFc")] };
        var replaced = new WidgetEnvelope { Widgets = [TestData.Widget(property0: "a\uFFFDb\uFFFDc")] };

        var reparsed = TestData.Parse(TestData.CanonicalBytes(lone));

        Assert.Equal("a\uFFFDb\uFFFDc", reparsed.Widgets[0].Property0);
        foreach (var name in strategies.Names)
        {
            Assert.Equal(strategies[name].Sign(replaced), strategies[name].Sign(lone));
            Assert.Equal(strategies[name].Sign(lone), strategies[name].Sign(reparsed));
        }
    }

    [Fact]
    public void Second_round_trip_changes_nothing()
    {
        var first = TestData.Parse(TestData.CanonicalBytes(EnvelopeGenerator.Create(100, seed: 6, GeneratedText.Awkward)));

        var second = TestData.Parse(TestData.CanonicalBytes(first));

        for (var i = 0; i < first.Widgets.Count; i++)
        {
            Assert.Equal(Strings(first.Widgets[i]), Strings(second.Widgets[i]));
        }
    }

    private static string[] Strings(Widget w) =>
        [w.Property0, w.Property1, w.Property2, w.Property3, w.Property4, w.Property5, w.Property6, w.Property7, w.Property8, w.Property9];

    // What a UTF-8 encoder with a replacement fallback does to text: each unpaired surrogate becomes U+FFFD.
    private static string ReplaceLoneSurrogates(string s)
    {
        var builder = new StringBuilder(s.Length);
        for (var i = 0; i < s.Length; i++)
        {
            if (char.IsHighSurrogate(s[i]) && i + 1 < s.Length && char.IsLowSurrogate(s[i + 1]))
            {
                builder.Append(s, i, 2);
                i++;
            }
            else
            {
                builder.Append(char.IsSurrogate(s[i]) ? '\uFFFD' : s[i]);
            }
        }

        return builder.ToString();
    }
}
