using Signing;
using Signing.Strategies;

namespace Signing.Tests;

/// <summary>
/// Choosing a strategy by name: the built-in names in the order the docs list them, found whatever their case, and an
/// unknown or repeated name refused rather than guessed.
/// </summary>
public sealed class SigningStrategiesTests
{
    [Fact]
    public void The_built_in_strategies_are_listed_in_the_order_of_the_README()
    {
        Assert.Equal(["string", "memorystream", "recyclable", "recyclablehash", "streaming", "utf8"], TestData.CreateStrategies().Names);
        Assert.Equal("recyclable", SigningStrategies.DefaultName);
    }

    [Theory]
    [InlineData("utf8", "utf8")]
    [InlineData("UTF8", "utf8")]
    [InlineData("RecyclableHash", "recyclablehash")]
    public void A_name_is_found_whatever_its_case(string asked, string found)
    {
        var strategies = TestData.CreateStrategies();

        Assert.True(strategies.TryGet(asked, out var strategy));
        Assert.Equal(found, strategy.Name);
        Assert.Same(strategy, strategies[asked]);
    }

    [Theory]
    [InlineData("")]
    [InlineData("pooled")]
    [InlineData("utf-8")]
    public void An_unknown_name_is_not_found(string name)
    {
        var strategies = TestData.CreateStrategies();

        Assert.False(strategies.TryGet(name, out var strategy));
        Assert.Null(strategy);
        Assert.Throws<KeyNotFoundException>(() => strategies[name]);
    }

    [Fact]
    public void Names_that_differ_only_in_case_are_refused()
    {
        Assert.Throws<ArgumentException>(() => new SigningStrategies([new Utf8Signer(TestData.Key), new Renamed("UTF8")]));
        Assert.Equal("strategies", Assert.Throws<ArgumentNullException>(() => new SigningStrategies(null!)).ParamName);
    }

    private sealed class Renamed(string name) : ISigningStrategy
    {
        public string Name => name;

        public double HeldBytesPerDocumentByte => 0;

        public SignResult Sign(WidgetEnvelope envelope) => throw new NotSupportedException();
    }
}
