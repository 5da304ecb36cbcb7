using System.Buffers;
using System.Security.Cryptography;
using System.Text;

namespace Signing.Http.Access;

/// <summary>
/// The access keys SigningServer accepts (setting <c>Signing:AccessKeys:&lt;name&gt;</c>), the contract of Azure
/// Functions' function keys: when at least one is configured, sign, verify and stats need one of them in the
/// <c>x-functions-key</c> header or the <c>code</c> query parameter, so that clients cannot tell the two hosts apart.
/// </summary>
/// <remarks>
/// Only the SHA-256 digest of each key is kept, and a presented key is digested the same way before it is compared, so
/// every comparison is of two 32-byte values however long either key is: its time says nothing about a key's length
/// or how much of it matched. Each comparison is <see cref="CryptographicOperations.FixedTimeEquals"/>, and every
/// configured key is compared even after one has matched, so the time does not say which one did either.
/// </remarks>
public sealed class AccessKeys
{
    /// <summary>The request header a key may come in, as the Functions host reads it.</summary>
    public const string HeaderName = "x-functions-key";

    /// <summary>The query parameter a key may come in, as the Functions host reads it.</summary>
    public const string QueryName = "code";

    /// <summary>
    /// The shortest key accepted: 32 characters. A function key is 56; <c>openssl rand -base64 32</c> gives 44. A key
    /// short enough to guess would make the check a formality.
    /// </summary>
    public const int MinimumLength = 32;

    // Presented keys up to this many UTF-8 bytes are digested from the stack; longer ones (a header may hold kilobytes)
    // from a pooled array, so a check allocates nothing either way.
    private const int StackBytes = 256;

    private readonly byte[][] _digests;
    private readonly DigestEquals _equals;

    /// <summary>
    /// Keeps the digests of <paramref name="keys"/>, without the whitespace around them, which is no part of a key: HTTP
    /// drops it around a header's value, and a key read from a file may end in a newline. None means that every endpoint
    /// is open.
    /// </summary>
    public AccessKeys(IEnumerable<string> keys)
        : this(keys, CryptographicOperations.FixedTimeEquals)
    {
    }

    /// <summary>As the public constructor, comparing digests with <paramref name="equals"/>, which tests observe.</summary>
    internal AccessKeys(IEnumerable<string> keys, DigestEquals equals)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(equals);
        _digests = [.. keys.Select(key => SHA256.HashData(Encoding.UTF8.GetBytes(key.Trim())))];
        _equals = equals;
    }

    /// <summary>Compares two digests of <see cref="SHA256.HashSizeInBytes"/> each.</summary>
    internal delegate bool DigestEquals(ReadOnlySpan<byte> left, ReadOnlySpan<byte> right);

    /// <summary>Whether no key is configured, so that the endpoints need none.</summary>
    public bool IsOpen => _digests.Length == 0;

    /// <summary>How many keys are configured; never which.</summary>
    public int Count => _digests.Length;

    /// <summary>
    /// Whether <paramref name="presented"/> is one of the keys. False for none or an empty one. Takes the same time for
    /// every presented key of a given length, whichever key it matches or how much of one.
    /// </summary>
    public bool Matches(string? presented)
    {
        if (string.IsNullOrEmpty(presented) || IsOpen)
        {
            return false;
        }

        var length = Encoding.UTF8.GetByteCount(presented);
        // Stryker disable once Equality,Conditional : a key that fits the stack gives the same answer from a borrowed array, only slower.
        var rented = length > StackBytes ? ArrayPool<byte>.Shared.Rent(length) : null;
        try
        {
            var bytes = rented is null ? stackalloc byte[StackBytes] : rented.AsSpan();
            var written = Encoding.UTF8.GetBytes(presented, bytes);
            Span<byte> digest = stackalloc byte[SHA256.HashSizeInBytes];
            SHA256.HashData(bytes[..written], digest);
            var matched = false;
            foreach (var configured in _digests)
            {
                // Not '||': every key is compared, so the time does not depend on which one matched.
                matched |= _equals(digest, configured);
            }

            return matched;
        }
        finally
        {
            if (rented is not null)
            {
                // The presented bytes were a secret's candidate; the next renter must not read them.
                ArrayPool<byte>.Shared.Return(rented, clearArray: true);
            }
        }
    }
}
