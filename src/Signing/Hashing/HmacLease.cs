using System.Security.Cryptography;

namespace Signing.Hashing;

/// <summary>
/// HMAC-SHA256 state borrowed for one sign. Creating an <see cref="IncrementalHash"/> allocates (and sets up the
/// native context with the key) on every call; each thread keeps the last one it used instead, so signing in a loop
/// allocates none.
/// </summary>
/// <remarks>
/// State goes back to the thread only in <see cref="Finish"/>, once it has been read and reset. A sign that fails
/// part-way leaves data in the hash, so <see cref="Dispose"/> destroys state that did not go back rather than let the
/// next sign start from it. Readonly, so that a <c>using</c> declaration cannot act on a defensive copy.
/// </remarks>
internal readonly ref struct HmacLease
{
    // One per thread, for the key it was made with (compared by reference: a SigningKey never changes its array).
    [ThreadStatic]
    private static IncrementalHash? t_cached;

    [ThreadStatic]
    private static byte[]? t_cachedKey;

    private readonly byte[] _key;

    private HmacLease(byte[] key, IncrementalHash hash)
    {
        _key = key;
        Hash = hash;
    }

    /// <summary>The state to feed the canonical bytes to.</summary>
    public IncrementalHash Hash { get; }

    /// <summary>Borrows this thread's state for <paramref name="key"/>, or makes it when there is none.</summary>
    public static HmacLease Rent(SigningKey key)
    {
        var cached = t_cached;
        if (cached is not null && ReferenceEquals(t_cachedKey, key.Material))
        {
            t_cached = null;
            return new HmacLease(key.Material, cached);
        }

        return new HmacLease(key.Material, IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key.Material));
    }

    /// <summary>
    /// The MAC of everything fed so far, as 64 lowercase hex characters. Resets the state and gives it back to the
    /// thread (replacing whatever state, for another key, the thread kept).
    /// </summary>
    public string Finish()
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Hash.GetHashAndReset(mac);
        if (!ReferenceEquals(t_cached, Hash))
        {
            t_cached?.Dispose();
            t_cached = Hash;
            t_cachedKey = _key;
        }

        return Convert.ToHexStringLower(mac);
    }

    /// <summary>Destroys the state unless <see cref="Finish"/> gave it back clean.</summary>
    public void Dispose()
    {
        if (!ReferenceEquals(t_cached, Hash))
        {
            Hash.Dispose();
        }
    }
}
