using System.Collections.Frozen;
using Microsoft.Extensions.Options;
using Signing.Transcoding;

namespace Signing.Http.Memory;

/// <summary>
/// Each strategy's own body limit, derived once at start-up: the largest body whose charge (<see cref="RequestMemory"/>,
/// for the longest document a body without raw U+0085, U+2028 or U+2029 can make) fits the whole
/// <see cref="InFlightBudget"/>, capped by <c>Signing:MaxRequestBodyBytes</c>. A body over it could
/// never be admitted with that strategy, however long it waited, so it is refused at once with 413 naming the strategy,
/// its limit and the strategies that take the body, instead of a 503 whose retry would be in vain.
/// </summary>
/// <remarks>
/// The service starts whenever one strategy can serve: on a small instance the costly strategies (<c>string</c> is
/// charged 8.5 times its body) get a smaller limit and the cheap ones (<c>transcode</c>, 2 times) keep theirs. Only
/// a budget that leaves every strategy unable to take a body is a setting to fix.
/// </remarks>
public sealed class StrategyBodyLimits
{
    private readonly FrozenDictionary<string, long> _limits;
    private readonly FrozenDictionary<string, Func<long, long, long>> _charges;
    private readonly long _budgetBytes;

    private StrategyBodyLimits(
        IReadOnlyList<string> names, FrozenDictionary<string, long> limits, FrozenDictionary<string, Func<long, long, long>> charges, long budgetBytes)
    {
        Names = names;
        _limits = limits;
        _charges = charges;
        _budgetBytes = budgetBytes;
    }

    /// <summary>Every strategy's canonical name, in the order the keys' strategies list them, <c>transcode</c> last.</summary>
    public IReadOnlyList<string> Names { get; }

    /// <summary>The largest body <paramref name="strategy"/> (a canonical name) takes.</summary>
    public long this[string strategy] => _limits[strategy];

    /// <summary>
    /// Every strategy's limit for <paramref name="budget"/>. Refuses, as an invalid setting, a budget in which no
    /// strategy can take a body at all: every request would be refused forever.
    /// </summary>
    /// <exception cref="OptionsValidationException">No strategy can serve within the budget.</exception>
    public static StrategyBodyLimits Create(SigningOptions options, InFlightBudget budget, SigningStrategies strategies)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(budget);
        ArgumentNullException.ThrowIfNull(strategies);

        // Each strategy's charge for a body and the most its canonical document can take (transcode holds no document).
        var blockSize = options.RecyclableMemoryStream.BlockSize;
        var charges = new Dictionary<string, Func<long, long, long>>(StringComparer.Ordinal);
        foreach (var name in strategies.Names)
        {
            var strategy = strategies[name];
            charges[name] = (bodyBytes, documentBytes) => RequestMemory.For(strategy, bodyBytes, documentBytes, blockSize);
        }

        charges[TranscodingSigner.StrategyName] = (bodyBytes, _) => RequestMemory.ForTranscode(bodyBytes, blockSize);

        // A body's limit is for the longest document a body without raw U+0085, U+2028 or U+2029 can make, so every such
        // body within it is taken; see Takes for the others.
        var limits = charges.ToDictionary(
            named => named.Key,
            named => LargestBody(bytes => named.Value(bytes, CanonicalLength.AtMostWithoutRawEscapes(bytes)), budget.LimitBytes, options.MaxRequestBodyBytes),
            StringComparer.Ordinal);
        if (limits.Values.All(limit => limit == 0))
        {
            throw new OptionsValidationException(SigningOptions.SectionName, typeof(SigningOptions),
            [
                $"{SigningOptions.SectionName}:MaxInFlightBytes ({budget.LimitBytes} bytes) cannot hold a request of any size with any strategy: " +
                $"even an empty one is charged {RequestMemory.FixedBytes(blockSize)} bytes ({StreamPoolSettings.SectionName}:BlockSize {blockSize} bytes). " +
                "Raise the first or lower the second.",
            ]);
        }

        return new StrategyBodyLimits(
            [.. strategies.Names, TranscodingSigner.StrategyName],
            limits.ToFrozenDictionary(StringComparer.Ordinal),
            charges.ToFrozenDictionary(StringComparer.Ordinal),
            budget.LimitBytes);
    }

    /// <summary>The strategies whose limit is at least <paramref name="bodyBytes"/>, in the order of <see cref="Names"/>.</summary>
    public IReadOnlyList<string> Taking(long bodyBytes) => [.. Names.Where(name => _limits[name] >= bodyBytes)];

    /// <summary>
    /// Whether <paramref name="strategy"/> can ever take a parsed body of <paramref name="bodyBytes"/> whose canonical
    /// document takes up to <paramref name="documentBytes"/>. A body within the strategy's limit can still have a
    /// document longer than itself (raw U+0085, U+2028 or U+2029, instants without their time: see
    /// <see cref="CanonicalLength"/>) whose charge no budget this size could hold: refused with 413, never a 503 whose
    /// retry would be in vain.
    /// </summary>
    public bool Takes(string strategy, long bodyBytes, long documentBytes) =>
        _limits[strategy] >= bodyBytes && _charges[strategy](bodyBytes, documentBytes) <= _budgetBytes;

    /// <summary>The strategies that <see cref="Takes"/> such a body, in the order of <see cref="Names"/>.</summary>
    public IReadOnlyList<string> Taking(long bodyBytes, long documentBytes) =>
        [.. Names.Where(name => Takes(name, bodyBytes, documentBytes))];

    /// <summary>Every limit, by strategy name, for <c>GET /api/stats</c>.</summary>
    public IReadOnlyDictionary<string, long> ToDictionary() => Names.ToDictionary(name => name, name => _limits[name], StringComparer.Ordinal);

    // The largest body, at most maxBodyBytes, whose charge fits limitBytes: 0 when not even an empty body's does. A
    // charge grows with the body, so a binary search finds it in at most 32 steps whatever the sizes.
    private static long LargestBody(Func<long, long> charge, long limitBytes, long maxBodyBytes)
    {
        if (charge(0) > limitBytes)
        {
            return 0;
        }

        long fits = 0, tooLarge = maxBodyBytes + 1;
        while (tooLarge - fits > 1)
        {
            var middle = fits + ((tooLarge - fits) / 2);
            if (charge(middle) <= limitBytes)
            {
                fits = middle;
            }
            else
            {
                tooLarge = middle;
            }
        }

        return fits;
    }
}
