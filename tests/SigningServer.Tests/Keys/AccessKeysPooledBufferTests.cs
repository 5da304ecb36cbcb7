using System.Buffers;
using System.Text;
using Signing.Http.Access;

namespace SigningServer.Tests.Keys;

/// <summary>
/// A presented key too long to digest from the stack borrows an array from the shared pool and gives it back cleared:
/// checking such keys over and over allocates nothing, and whoever borrows that array next cannot read the key that
/// was presented.
/// </summary>
public sealed class AccessKeysPooledBufferTests
{
    private const string Configured = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    // 1,000 UTF-8 bytes, past the 256 digested from the stack.
    private static readonly string LongKey = string.Concat(Enumerable.Repeat("0123456789", 100));

    [Fact]
    public void Checking_a_long_key_again_and_again_allocates_nothing()
    {
        const int Checks = 1000;
        var keys = new AccessKeys([Configured]);

        // The first check may find the pool empty on this thread and fill it.
        Assert.False(keys.Matches(LongKey));

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < Checks; i++)
        {
            keys.Matches(LongKey);
        }

        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // An array kept instead of given back would be replaced by a new one once the pool runs dry: about a KiB per check.
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void The_array_a_long_key_passed_through_goes_back_to_the_pool_cleared()
    {
        var keys = new AccessKeys([Configured]);
        var presented = Encoding.UTF8.GetBytes(LongKey);

        Assert.False(keys.Matches(LongKey));

        // The pool hands the array given back last on this thread to the next request for that size on it.
        var next = ArrayPool<byte>.Shared.Rent(presented.Length);
        try
        {
            Assert.Equal(-1, next.AsSpan().IndexOf(presented));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(next);
        }
    }
}
