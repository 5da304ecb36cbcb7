namespace Signing;

/// <summary>
/// One way of turning an envelope into its canonical bytes and their HMAC. Strategies differ only in how they buffer;
/// all of them must produce the same signature for the same envelope and key.
/// </summary>
public interface ISigningStrategy
{
    /// <summary>The lowercase name callers pass in <c>?strategy=</c>.</summary>
    string Name { get; }

    /// <summary>Signs <paramref name="envelope"/>. Safe to call concurrently.</summary>
    SignResult Sign(WidgetEnvelope envelope);
}
