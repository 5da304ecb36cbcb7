using System.Collections.Frozen;
using System.Diagnostics.CodeAnalysis;
using Microsoft.IO;
using Signing.Strategies;

namespace Signing;

/// <summary>
/// The strategies a caller can choose by name. Adding a strategy means writing its class and listing it in
/// <see cref="CreateBuiltIn"/>; nothing else dispatches on their names. <c>transcode</c> is not one of them: it signs
/// the body as it arrives rather than a parsed envelope, so the endpoint picks it by its own name
/// (<see cref="Transcoding.TranscodingSigner.StrategyName"/>).
/// </summary>
public sealed class SigningStrategies
{
    /// <summary>The strategy used when a request names none: <c>recyclable</c>, the write-up's recommendation.</summary>
    public const string DefaultName = RecyclableStreamSigner.StrategyName;

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

    /// <summary>
    /// The strategies this library ships, all signing with <paramref name="key"/>; the recyclable ones take their
    /// streams from <paramref name="streams"/>, the process's one pool.
    /// </summary>
    public static SigningStrategies CreateBuiltIn(SigningKey key, RecyclableMemoryStreamManager streams) => new(
    [
        new StringSigner(key),
        new MemoryStreamSigner(key),
        new RecyclableStreamSigner(key, streams),
        new RecyclableHashSigner(key, streams),
        new StreamingSigner(key),
        new Utf8Signer(key),
    ]);

    /// <summary>Finds a strategy by name, ignoring case.</summary>
    public bool TryGet(string name, [NotNullWhen(true)] out ISigningStrategy? strategy) => _byName.TryGetValue(name, out strategy);

    /// <summary>Looks up a strategy that must exist, such as <see cref="DefaultName"/>.</summary>
    public ISigningStrategy this[string name] => _byName[name];
}
