using System.Collections.Frozen;
using System.Diagnostics.CodeAnalysis;
using Signing.Strategies;

namespace Signing;

/// <summary>
/// The strategies a caller can choose by name. Adding a strategy means writing its class and listing it in
/// <see cref="CreateBuiltIn"/>; nothing else dispatches on names.
/// </summary>
public sealed class SigningStrategies
{
    /// <summary>
    /// The strategy used when a request names none: the pooled one, the write-up's recommendation (its
    /// <c>recyclable</c> row) as far as our mirror allows.
    /// </summary>
    public const string DefaultName = PooledBufferSigner.StrategyName;

    private readonly FrozenDictionary<string, ISigningStrategy> _byName;

    /// <summary>Indexes <paramref name="strategies"/> by name, case-insensitively; names must be unique.</summary>
    public SigningStrategies(IEnumerable<ISigningStrategy> strategies)
    {
        ArgumentNullException.ThrowIfNull(strategies);
        var list = strategies.ToList();
        _byName = list.ToFrozenDictionary(s => s.Name, StringComparer.OrdinalIgnoreCase);
        Names = list.Select(s => s.Name).ToArray();
    }

    /// <summary>Every strategy name, in the order they were listed (the order docs and tables use).</summary>
    public IReadOnlyList<string> Names { get; }

    /// <summary>The strategies this library ships, all signing with <paramref name="key"/>.</summary>
    public static SigningStrategies CreateBuiltIn(SigningKey key, BufferPool pool) => new(
    [
        new StringSigner(key),
        new MemoryStreamSigner(key),
        new PooledBufferSigner(key, pool),
        new PooledHashSigner(key, pool),
        new StreamingSigner(key),
        new Utf8Signer(key, pool),
    ]);

    /// <summary>Finds a strategy by name, ignoring case.</summary>
    public bool TryGet(string name, [NotNullWhen(true)] out ISigningStrategy? strategy) => _byName.TryGetValue(name, out strategy);

    /// <summary>Looks up a strategy that must exist, such as <see cref="DefaultName"/>.</summary>
    public ISigningStrategy this[string name] => _byName[name];
}
