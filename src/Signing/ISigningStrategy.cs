namespace Signing;

/// <summary>
/// One way of turning an envelope into its canonical bytes and their HMAC. Strategies differ only in how they buffer;
/// all of them must produce the same signature for the same envelope and key.
/// </summary>
public interface ISigningStrategy
{
    /// <summary>The lowercase name callers pass in <c>?strategy=</c>.</summary>
    string Name { get; }

    /// <summary>
    /// The most memory a sign holds, per byte of canonical document: what it allocates (an upper bound of what it
    /// keeps alive) plus the pooled blocks it holds. The service charges a request for it before reading the body, so
    /// an overloaded server refuses work instead of running out of memory. Measured, not guessed: the allocation guard
    /// tests hold each strategy to it.
    /// </summary>
    double HeldBytesPerDocumentByte { get; }

    /// <summary>Signs <paramref name="envelope"/>. Safe to call concurrently.</summary>
    SignResult Sign(WidgetEnvelope envelope);
}
