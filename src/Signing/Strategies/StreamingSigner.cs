using Signing.Hashing;

namespace Signing.Strategies;

/// <summary>
/// Newtonsoft serializes straight into the HMAC: its <see cref="StreamWriter"/> encodes into a small fixed buffer and
/// hands each full buffer to an <see cref="HmacStream"/>, which hashes it and keeps nothing. No buffer of the document
/// exists, so the memory a sign holds does not grow with the envelope (what Newtonsoft allocates per value still does,
/// as short-lived garbage).
/// </summary>
/// <remarks>Named <c>streaming</c> because the document is only ever a stream passing through the hash.</remarks>
public sealed class StreamingSigner(SigningKey key) : ISigningStrategy
{
    /// <summary>The name callers use in <c>?strategy=</c>.</summary>
    public const string StrategyName = "streaming";

    /// <inheritdoc/>
    public string Name => StrategyName;

    /// <inheritdoc/>
    /// <remarks>Newtonsoft's garbage only (0.43 measured): the document is never held (3,000 widgets, <c>Sign-Allocated-Bytes</c> per body byte).</remarks>
    public double HeldBytesPerDocumentByte => 0.5;

    /// <inheritdoc/>
    public SignResult Sign(WidgetEnvelope envelope)
    {
        using var hmac = HmacLease.Rent(key);
        using var stream = new HmacStream(hmac.Hash);
        CanonicalJson.Write(envelope, stream);
        return new SignResult(hmac.Finish(), stream.BytesWritten);
    }
}
