using System.Runtime.ExceptionServices;
using System.Security.Cryptography;
using Signing.Hashing;

namespace Signing.Tests.Hashing;

/// <summary>
/// The per-thread HMAC state behind <c>utf8</c>, <c>streaming</c>, <c>recyclablehash</c> and <c>transcode</c>: a state is
/// reused only for its own key and only once it has been read and reset, and every state that leaves the cache any
/// other way is destroyed at once rather than left holding native memory until a finalizer runs.
/// </summary>
/// <remarks>
/// Each test runs on a thread of its own, so the cache starts empty whatever other tests left on the pool's threads.
/// Expected MACs are from Python's <c>hmac</c> module with the key below.
/// </remarks>
public sealed class HmacCacheTests
{
    // python3 -c "import hmac,hashlib; print(hmac.new(b'0123456789abcdef0123456789abcdef', b'abc', hashlib.sha256).hexdigest())"
    private const string MacOfAbc = "a60c859a6827c5ea576a48d8d368672fbfe4667c6a927428284a0cb3859cc1d6";

    // The same with b'abcdef'.
    private const string MacOfAbcdef = "8ecc5be523c5dfd71c043604e9a20e3b2ee3ebe1b4b129a9cb0105d027db5fc5";

    // The same with the key b'fedcba9876543210fedcba9876543210' and b'abc'.
    private const string OtherKeyMacOfAbc = "205971baa5010f8aa8b15392aa8eda768c79468f6683fc25f447f7aa8b57a927";

    private static readonly SigningKey Key = new("0123456789abcdef0123456789abcdef"u8);

    [Fact]
    public void A_finished_lease_gives_the_HMAC_and_its_state_to_the_next_lease_for_the_key() => OnNewThread(() =>
    {
        IncrementalHash first;
        using (var lease = HmacLease.Rent(Key))
        {
            first = lease.Hash;
            lease.Hash.AppendData("abc"u8);
            Assert.Equal(MacOfAbc, lease.Finish());
        }

        // Reset on the way back: the next sign starts from nothing, not from "abc".
        using var next = HmacLease.Rent(Key);
        Assert.Same(first, next.Hash);
        next.Hash.AppendData("abcdef"u8);
        Assert.Equal(MacOfAbcdef, next.Finish());
    });

    [Fact]
    public void A_lease_disposed_without_Finish_destroys_its_state_and_the_next_lease_gets_a_new_one() => OnNewThread(() =>
    {
        IncrementalHash abandoned;
        using (var lease = HmacLease.Rent(Key))
        {
            abandoned = lease.Hash;
            lease.Hash.AppendData("abc"u8);
        }

        Assert.Throws<ObjectDisposedException>(() => abandoned.AppendData("abc"u8));
        Assert.False(HmacCache.Holds(abandoned));

        using var next = HmacLease.Rent(Key);
        Assert.NotSame(abandoned, next.Hash);
        next.Hash.AppendData("abc"u8);
        Assert.Equal(MacOfAbc, next.Finish());
    });

    [Fact]
    public void A_lease_disposed_after_Finish_leaves_its_state_alive_in_the_cache() => OnNewThread(() =>
    {
        IncrementalHash kept;
        using (var lease = HmacLease.Rent(Key))
        {
            kept = lease.Hash;
            lease.Finish();
        }

        Assert.True(HmacCache.Holds(kept));
        kept.AppendData("abc"u8);
        Assert.Equal(MacOfAbc, HmacCache.Finish(kept, Key));
    });

    [Fact]
    public void A_state_taken_out_is_no_longer_held_and_no_second_taker_gets_it() => OnNewThread(() =>
    {
        var hash = HmacCache.Take(Key);
        HmacCache.Keep(hash, Key);
        Assert.True(HmacCache.Holds(hash));

        var taken = HmacCache.Take(Key);

        Assert.Same(hash, taken);
        Assert.False(HmacCache.Holds(taken));
        Assert.NotSame(taken, HmacCache.Take(Key));
    });

    [Fact]
    public void Keeping_a_state_twice_keeps_it_once() => OnNewThread(() =>
    {
        var hash = HmacCache.Take(Key);
        HmacCache.Keep(hash, Key);
        HmacCache.Keep(hash, Key);

        Assert.Same(hash, HmacCache.Take(Key));
        Assert.NotSame(hash, HmacCache.Take(Key));
    });

    [Fact]
    public void A_state_is_reused_only_for_the_key_it_was_made_with() => OnNewThread(() =>
    {
        var other = new SigningKey("fedcba9876543210fedcba9876543210"u8);
        var ours = HmacCache.Take(Key);
        HmacCache.Keep(ours, Key);

        var theirs = HmacCache.Take(other);

        Assert.NotSame(ours, theirs);
        Assert.True(HmacCache.Holds(ours));
        theirs.AppendData("abc"u8);
        Assert.Equal(OtherKeyMacOfAbc, HmacCache.Finish(theirs, other));
    });

    [Fact]
    public void With_every_slot_full_the_state_kept_longest_is_destroyed_in_turn() => OnNewThread(() =>
    {
        // Four slots; ten keys kept one after another, so the evictions go round the slots more than once.
        var keys = Enumerable.Range(0, 10).Select(i => new SigningKey(Enumerable.Repeat((byte)i, SigningKey.MinimumBytes).ToArray())).ToArray();
        var hashes = keys.Select(HmacCache.Take).ToArray();

        for (var i = 0; i < keys.Length; i++)
        {
            HmacCache.Keep(hashes[i], keys[i]);

            // The four most recent are kept; every older one has been destroyed, oldest first.
            for (var j = 0; j <= i; j++)
            {
                if (j > i - 4)
                {
                    Assert.True(HmacCache.Holds(hashes[j]), $"After keeping {i}, state {j} should be kept.");
                    hashes[j].AppendData("abc"u8);
                    hashes[j].GetHashAndReset();
                }
                else
                {
                    Assert.False(HmacCache.Holds(hashes[j]), $"After keeping {i}, state {j} should be gone.");
                    Assert.Throws<ObjectDisposedException>(() => hashes[j].AppendData("abc"u8));
                }
            }
        }

        Assert.Same(hashes[9], HmacCache.Take(keys[9]));
        Assert.NotSame(hashes[5], HmacCache.Take(keys[5]));
    });

    // Runs the test on a thread of its own, whose cache starts empty; an assertion that fails there fails the test.
    private static void OnNewThread(Action test)
    {
        ExceptionDispatchInfo? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                test();
            }
#pragma warning disable CA1031 // Rethrown on the test's thread below.
            catch (Exception e)
#pragma warning restore CA1031
            {
                failure = ExceptionDispatchInfo.Capture(e);
            }
        });
        thread.Start();
        thread.Join();
        failure?.Throw();
    }
}
