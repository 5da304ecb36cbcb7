using System.Security.Cryptography;

namespace Signing.Hashing;

/// <summary>
/// HMAC-SHA256 state borrowed from this thread's <see cref="HmacCache"/> for one synchronous sign, so that signing in a
/// loop allocates none.
/// </summary>
/// <remarks>
/// State goes back to the thread only in <see cref="Finish"/>, once it has been read and reset. A sign that fails
/// part-way leaves data in the hash, so <see cref="Dispose"/> destroys state that did not go back rather than let the
/// next sign start from it. Readonly, so that a <c>using</c> declaration cannot act on a defensive copy.
/// </remarks>
internal readonly ref struct HmacLease
{
    private readonly SigningKey _key;

    private HmacLease(SigningKey key, IncrementalHash hash)
    {
        _key = key;
        Hash = hash;
    }

    /// <summary>The state to feed the canonical bytes to.</summary>
    public IncrementalHash Hash { get; }

    /// <summary>Borrows this thread's state for <paramref name="key"/>, or makes it when there is none.</summary>
    public static HmacLease Rent(SigningKey key) => new(key, HmacCache.Take(key));

    /// <summary>
    /// The MAC of everything fed so far, as 64 lowercase hex characters. Resets the state and gives it back to the
    /// thread.
    /// </summary>
    public string Finish() => HmacCache.Finish(Hash, _key);

    /// <summary>Destroys the state unless <see cref="Finish"/> gave it back clean.</summary>
    public void Dispose()
    {
        if (!HmacCache.Holds(Hash))
        {
            Hash.Dispose();
        }
    }
}
