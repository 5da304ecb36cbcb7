namespace Signing.Http.Keys;

/// <summary>The strategies that sign with one configured key, and that key's id.</summary>
/// <param name="KeyId">The id from configuration (<see cref="SigningKeyRing.DefaultKeyId"/> for <c>Signing:Key</c>).</param>
/// <param name="Strategies">Every built-in strategy, holding that key.</param>
public sealed record KeyedStrategies(string KeyId, SigningStrategies Strategies);
