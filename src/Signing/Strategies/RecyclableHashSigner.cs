using Microsoft.IO;
using Signing.Hashing;

namespace Signing.Strategies;

/// <summary>
/// <c>recyclable</c> with its tail done the way the library's modern API allows: the same Newtonsoft serialization
/// into pooled blocks, then each block hashed where it lies (<see cref="RecyclableMemoryStream.GetReadOnlySequence"/>)
/// into this thread's reused HMAC state, and hexed in one call. No copy through a 4 KB read buffer, no
/// <see cref="System.Security.Cryptography.HMACSHA256"/> per call, no three-string hex chain.
/// </summary>
/// <remarks>Named <c>recyclablehash</c>: it is <c>recyclable</c> with the hashing done properly.</remarks>
public sealed class RecyclableHashSigner(SigningKey key, RecyclableMemoryStreamManager streams) : ISigningStrategy
{
    /// <summary>The name callers use in <c>?strategy=</c>, and the tag of the streams it takes from the pool.</summary>
    public const string StrategyName = "recyclablehash";

    /// <inheritdoc/>
    public string Name => StrategyName;

    /// <inheritdoc/>
    /// <remarks>the document in pooled blocks (1.0) and Newtonsoft's garbage (0.43 measured) (3,000 widgets, <c>Sign-Allocated-Bytes</c> per body byte).</remarks>
    public double HeldBytesPerDocumentByte => 1.5;

    /// <inheritdoc/>
    public SignResult Sign(WidgetEnvelope envelope)
    {
        using var stream = streams.GetStream(StrategyName);
        CanonicalJson.Write(envelope, stream);

        using var hmac = HmacLease.Rent(key);
        foreach (var block in stream.GetReadOnlySequence())
        {
            hmac.Hash.AppendData(block.Span);
        }

        return new SignResult(hmac.Finish(), stream.Length);
    }
}
