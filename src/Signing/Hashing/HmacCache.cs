using System.Security.Cryptography;

namespace Signing.Hashing;

/// <summary>
/// HMAC-SHA256 states kept per thread between signs. Creating an <see cref="IncrementalHash"/> allocates (and sets up
/// the native context with the key) on every call; each thread keeps a few it used instead, so signing in a loop
/// allocates none.
/// </summary>
/// <remarks>
/// Only a state that has been read and reset goes back (<see cref="Finish"/>, or <see cref="Keep"/> for one never fed),
/// so no sign can start from another's data. A state taken on one thread may go back on another, as happens across an
/// <c>await</c>: an <see cref="IncrementalHash"/> is not tied to a thread, only not to be used by two at once.
/// </remarks>
internal static class HmacCache
{
    // Enough for the keys a verify tries during a rotation (the current and the previous) beside the signing key.
    private const int Slots = 4;

    // Per thread: states and the key material each was made with (compared by reference: a SigningKey never changes
    // its array), and which slot to reuse next when all are full.
    [ThreadStatic]
    private static IncrementalHash?[]? t_hashes;

    [ThreadStatic]
    private static byte[]?[]? t_keys;

    [ThreadStatic]
    private static int t_evictNext;

    /// <summary>This thread's state for <paramref name="key"/>, taken out of the cache, or a new one when there is none.</summary>
    public static IncrementalHash Take(SigningKey key)
    {
        var hashes = t_hashes;
        var keys = t_keys;
        if (
            // Stryker disable once Logical : equivalent, as Keep sets both arrays together, so they are null or not
            // together; both are tested only for the compiler's null analysis.
            hashes is not null && keys is not null)
        {
            for (var i = 0; i < Slots; i++)
            {
                var hash = hashes[i];
                if (hash is not null && ReferenceEquals(keys[i], key.Material))
                {
                    hashes[i] = null;
                    keys[i] = null;
                    return hash;
                }
            }
        }

        return IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key.Material);
    }

    /// <summary>
    /// The MAC of everything fed to <paramref name="hash"/>, as 64 lowercase hex characters; the state is reset and
    /// kept by this thread for <paramref name="key"/>.
    /// </summary>
    public static string Finish(IncrementalHash hash, SigningKey key)
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        hash.GetHashAndReset(mac);
        Keep(hash, key);
        return Convert.ToHexStringLower(mac);
    }

    /// <summary>
    /// Keeps <paramref name="hash"/>, which must be reset (fed nothing since it was made or last read), for
    /// <paramref name="key"/>; when every slot is full, one is destroyed to make room, the slots taken in turn.
    /// </summary>
    public static void Keep(IncrementalHash hash, SigningKey key)
    {
        var hashes = t_hashes ??= new IncrementalHash?[Slots];
        var keys = t_keys ??= new byte[]?[Slots];
        if (Array.IndexOf(hashes, hash) >= 0)
        {
            return;
        }

        var slot = Array.IndexOf(hashes, null);
        if (slot < 0)
        {
            slot = t_evictNext;
            t_evictNext = (slot + 1) % Slots;
            hashes[slot]!.Dispose();
        }

        hashes[slot] = hash;
        keys[slot] = key.Material;
    }

    /// <summary>Whether this thread keeps <paramref name="hash"/>, that is, whether it went back clean.</summary>
    public static bool Holds(IncrementalHash hash) => t_hashes is { } hashes && Array.IndexOf(hashes, hash) >= 0;
}
