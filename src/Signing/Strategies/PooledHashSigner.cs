using System.Security.Cryptography;
using CommunityToolkit.HighPerformance;

namespace Signing.Strategies;

/// <summary>
/// The <c>pooled</c> strategy with its tail fixed: the same Newtonsoft serialization into a buffer from the
/// <see cref="BufferPool"/>, but the MAC is computed in one static call over the buffer where it lies, into a stack
/// buffer, and hexed once. No <see cref="HMACSHA256"/> object, no hash array, no three-string hex chain.
/// </summary>
/// <remarks>
/// Named <c>pooledhash</c>: it is <c>pooled</c> with the hashing done properly, and the name says which part changed.
/// </remarks>
public sealed class PooledHashSigner(SigningKey key, BufferPool pool) : ISigningStrategy
{
    /// <summary>The name callers use in <c>?strategy=</c>.</summary>
    public const string StrategyName = "pooledhash";

    /// <inheritdoc/>
    public string Name => StrategyName;

    /// <inheritdoc/>
    public SignResult Sign(WidgetEnvelope envelope)
    {
        using var buffer = pool.RentWriter();
        using (var stream = buffer.AsStream())
        {
            CanonicalJson.Write(envelope, stream);
        }

        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(key.Material, buffer.WrittenSpan, mac);
        return new SignResult(Convert.ToHexStringLower(mac), buffer.WrittenCount);
    }
}
