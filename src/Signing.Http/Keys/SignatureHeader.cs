using System.Buffers;
using System.Security.Cryptography;

namespace Signing.Http.Keys;

/// <summary>
/// The claimed signature verify checks: <c>X-Signature: sha256=&lt;64 hex&gt;</c>, the form of GitHub's
/// <c>X-Hub-Signature-256</c>, so receivers and senders used to that scheme need nothing new.
/// </summary>
public static class SignatureHeader
{
    /// <summary>The request header verify reads.</summary>
    public const string Name = "X-Signature";

    /// <summary>What must precede the hex: the hash the HMAC is built on, as GitHub writes it.</summary>
    public const string Prefix = "sha256=";

    /// <summary>Bytes of an HMAC-SHA256, which the hex must decode to exactly.</summary>
    public const int HmacBytes = HMACSHA256.HashSizeInBytes;

    /// <summary>
    /// Decodes <paramref name="value"/> into <paramref name="hmac"/> (at least <see cref="HmacBytes"/> long).
    /// False for anything but the prefix followed by exactly 64 hex digits (either case): a wrong prefix, length or
    /// digit is a malformed header, never a mismatch.
    /// </summary>
    public static bool TryDecode(ReadOnlySpan<char> value, Span<byte> hmac)
    {
        if (!value.StartsWith(Prefix, StringComparison.Ordinal))
        {
            return false;
        }

        var hex = value[Prefix.Length..];
        return hex.Length == 2 * HmacBytes
            && Convert.FromHexString(hex, hmac, out _, out var written) == OperationStatus.Done
            && written == HmacBytes;
    }
}
