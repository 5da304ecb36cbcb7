using Microsoft.IO;
using Signing.Transcoding;

namespace Signing.Http.Keys;

/// <summary>
/// Every configured key, as strategies that hold it: the active one signs, and all of them verify, so a key can be
/// rotated (add the new key, make it active, retire the old one later) without a single failed verification.
/// </summary>
/// <remarks>
/// Strategies take their key when they are built, so the ring builds one set per key once, at start-up; verifying a
/// request then costs one sign per key at most.
/// </remarks>
public sealed class SigningKeyRing
{
    /// <summary>The id of the key set with the single-key form, <c>Signing:Key</c>.</summary>
    public const string DefaultKeyId = "default";

    /// <summary>Builds one set of strategies per key; <paramref name="activeKeyId"/> must be one of the ids.</summary>
    public SigningKeyRing(string activeKeyId, IReadOnlyDictionary<string, SigningKey> keys, RecyclableMemoryStreamManager streams)
    {
        ArgumentNullException.ThrowIfNull(activeKeyId);
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(streams);
        if (!keys.TryGetValue(activeKeyId, out var activeKey))
        {
            throw new ArgumentException($"The active key id '{activeKeyId}' is not among the keys.", nameof(activeKeyId));
        }

        ActiveKeyId = activeKeyId;
        Active = SigningStrategies.CreateBuiltIn(activeKey, streams);
        var others = keys.Where(k => k.Key != activeKeyId).OrderBy(k => k.Key, StringComparer.Ordinal).ToList();
        Keys =
        [
            new KeyedStrategies(activeKeyId, Active),
            .. others.Select(k => new KeyedStrategies(k.Key, SigningStrategies.CreateBuiltIn(k.Value, streams))),
        ];
        Transcoder = new TranscodingSigner(activeKey);
        EveryKeyTranscoder = new TranscodingSigner([activeKey, .. others.Select(k => k.Value)]);
        StrategyNames = [.. Active.Names, TranscodingSigner.StrategyName];
    }

    /// <summary>The id of the key that signs, which every sign response reports.</summary>
    public string ActiveKeyId { get; }

    /// <summary>The strategies that sign with the active key.</summary>
    public SigningStrategies Active { get; }

    /// <summary>Every key's strategies, the active key first (the likeliest match), then the others by id.</summary>
    public IReadOnlyList<KeyedStrategies> Keys { get; }

    /// <summary><c>transcode</c> with the active key, for sign.</summary>
    public TranscodingSigner Transcoder { get; }

    /// <summary>
    /// <c>transcode</c> with every key, in the order of <see cref="Keys"/>, for verify: a body can be read only once, so
    /// it is signed under every key in one pass.
    /// </summary>
    public TranscodingSigner EveryKeyTranscoder { get; }

    /// <summary>Every strategy a request can name: the envelope strategies, then <c>transcode</c>.</summary>
    public IReadOnlyList<string> StrategyNames { get; }

    /// <summary>Builds the ring from options that <see cref="SigningOptionsValidator"/> has passed.</summary>
    internal static SigningKeyRing FromOptions(SigningOptions options, RecyclableMemoryStreamManager streams)
    {
        var keys = options.ConfiguredKeys().ToDictionary(k => k.Id, k => SigningKey.FromBase64(k.Base64), StringComparer.Ordinal);
        // Stryker disable once Linq : there is always at least one configured key (the single-key form when nothing else is
        // set), and more than one without an active id fails validation first; Single and SingleOrDefault differ only on none.
        var active = string.IsNullOrWhiteSpace(options.ActiveKeyId) ? keys.Keys.Single() : options.ActiveKeyId.Trim();
        return new SigningKeyRing(active, keys, streams);
    }
}
