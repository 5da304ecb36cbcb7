using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>The holder of out-of-order members, as a buffer writer: what it accepts, what it keeps and what it rents.</summary>
public sealed class ParkedMembersTests
{
    [Fact]
    public void Advancing_past_the_memory_handed_out_or_backwards_is_refused()
    {
        var pool = new CountingArrayPool();
        using var parked = new ParkedMembers(pool);
        var free = parked.GetSpan(10).Length;
        parked.Advance(4);

        Assert.Throws<ArgumentOutOfRangeException>(() => parked.Advance(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => parked.Advance(free - 4 + 1));
        parked.Advance(free - 4);
    }

    [Fact]
    public void A_member_is_held_with_the_bytes_written_for_it_and_held_again_with_its_latest()
    {
        using var parked = new ParkedMembers(new CountingArrayPool());
        Park(parked, 3, "first"u8);
        Park(parked, 5, "other"u8);
        Park(parked, 3, "again"u8);

        Assert.True(parked.Holds(3));
        Assert.True(parked.Holds(5));
        Assert.False(parked.Holds(4));
        Assert.Equal("again"u8.ToArray(), parked[3].ToArray());
        Assert.Equal("other"u8.ToArray(), parked[5].ToArray());

        parked.Clear();
        Assert.False(parked.Holds(3));
    }

    [Fact]
    public void Memory_is_rented_again_only_when_what_is_asked_for_does_not_fit()
    {
        var pool = new CountingArrayPool();
        using (var parked = new ParkedMembers(pool))
        {
            var free = parked.GetSpan(16).Length;
            parked.Advance(free - 8);

            // Exactly what is left fits.
            Assert.Equal(8, parked.GetSpan(8).Length);
            Assert.Equal(1, pool.Rents);

            Assert.True(parked.GetSpan(9).Length >= 9);
            Assert.Equal(2, pool.Rents);
        }

        Assert.Equal(0, pool.Outstanding);
    }

    private static void Park(ParkedMembers parked, int member, ReadOnlySpan<byte> bytes)
    {
        parked.Begin();
        bytes.CopyTo(parked.GetSpan(bytes.Length));
        parked.Advance(bytes.Length);
        parked.End(member);
    }
}
