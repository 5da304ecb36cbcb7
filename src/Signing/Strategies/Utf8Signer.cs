using System.Buffers;
using Signing.Hashing;

namespace Signing.Strategies;

/// <summary>
/// The allocation floor: <see cref="CanonicalUtf8Writer"/> writes the canonical UTF-8 itself (no Newtonsoft, so no
/// boxed Guid or DateTime and no string per value) into one small buffer from <see cref="ArrayPool{T}.Shared"/>, which is
/// hashed each time it fills. The only allocations per sign are the signature string and a small sink object,
/// whatever the number of widgets.
/// </summary>
/// <remarks>
/// Named <c>utf8</c> because writing UTF-8 directly, instead of text that is encoded afterwards, is what sets it apart.
/// It signs the same bytes as every other strategy; the differential tests against Newtonsoft hold it to that.
/// </remarks>
public sealed class Utf8Signer(SigningKey key) : ISigningStrategy
{
    /// <summary>The name callers use in <c>?strategy=</c>.</summary>
    public const string StrategyName = "utf8";

    /// <summary>
    /// The buffer between the writer and the hash: large enough that the per-call cost of hashing is spread over many
    /// widgets, small enough to stay in the CPU's cache between being written and being hashed.
    /// </summary>
    public const int ChunkBytes = 16 * 1024;

    /// <inheritdoc/>
    public string Name => StrategyName;

    /// <inheritdoc/>
    /// <remarks>nothing that grows with the document: a 16 KiB chunk and the signature, counted in the fixed part of a charge.</remarks>
    public double HeldBytesPerDocumentByte => 0;

    /// <inheritdoc/>
    public SignResult Sign(WidgetEnvelope envelope)
    {
        using var hmac = HmacLease.Rent(key);
        var buffer = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            var sink = new HmacSink(hmac.Hash, buffer);
            var length = CanonicalUtf8Writer.Write(envelope, sink);
            sink.Flush();
            return new SignResult(hmac.Finish(), length);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
