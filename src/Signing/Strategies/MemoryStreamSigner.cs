using System.Security.Cryptography;

namespace Signing.Strategies;

/// <summary>
/// The write-up's second approach, kept as written: serialize through a <see cref="StreamWriter"/> into a new
/// <see cref="MemoryStream"/>, then hash the stream. No string, but the stream's doubling buffers are garbage.
/// </summary>
public sealed class MemoryStreamSigner(SigningKey key) : ISigningStrategy
{
    /// <summary>The name callers use in <c>?strategy=</c>.</summary>
    public const string StrategyName = "memorystream";

    /// <inheritdoc/>
    public string Name => StrategyName;

    /// <inheritdoc/>
    /// <remarks>the stream's doubling buffers, each copied into the next, plus Newtonsoft's garbage: 4.31 measured at 3,000 widgets, 3.52 at 30,000 (<c>Sign-Allocated-Bytes</c> per body byte).</remarks>
    public double HeldBytesPerDocumentByte => 4.5;

    /// <inheritdoc/>
    public SignResult Sign(WidgetEnvelope envelope)
    {
        using var stream = new MemoryStream();
        CanonicalJson.Write(envelope, stream);

        stream.Position = 0;
        using var hmac = new HMACSHA256(key.Material);
        return new SignResult(LegacyHex.Format(hmac.ComputeHash(stream)), stream.Length);
    }
}
