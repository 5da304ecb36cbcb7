using System.Security.Cryptography;
using Microsoft.IO;

namespace Signing.Strategies;

/// <summary>
/// The write-up's third approach, kept as written: serialize through a <see cref="StreamWriter"/> into a stream from
/// the process-wide <see cref="RecyclableMemoryStreamManager"/>, rewind it, and hash it with a new
/// <see cref="HMACSHA256"/>. The document lives in pooled 128 KiB blocks that go back to the pool when the stream is
/// disposed, so it never reaches the garbage collector; the <see cref="HMACSHA256"/> object, its copy through
/// <see cref="HashAlgorithm.ComputeHash(Stream)"/>'s buffer and the hex chain still allocate, as they did in the
/// write-up.
/// </summary>
/// <remarks>The default strategy: the write-up's recommendation, reproduced with the real library.</remarks>
public sealed class RecyclableStreamSigner(SigningKey key, RecyclableMemoryStreamManager streams) : ISigningStrategy
{
    /// <summary>The name callers use in <c>?strategy=</c>, and the tag of the streams it takes from the pool.</summary>
    public const string StrategyName = "recyclable";

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

        stream.Position = 0;
        using var hmac = new HMACSHA256(key.Material);
        return new SignResult(LegacyHex.Format(hmac.ComputeHash(stream)), stream.Length);
    }
}
