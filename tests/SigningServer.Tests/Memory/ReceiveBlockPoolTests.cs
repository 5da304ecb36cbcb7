using System.Buffers;
using System.Runtime.InteropServices;
using Signing.Http.Memory;

namespace SigningServer.Tests.Memory;

/// <summary>
/// <see cref="ReceiveBlockPool"/> without a server: every block is 16 KiB whatever is asked up to that, a block given
/// back is rented again, renting and giving back allocate nothing once blocks exist, blocks are pinned, and no more
/// than <see cref="ReceiveBlockPool.MaxKeptBlocks"/> are kept.
/// </summary>
public sealed class ReceiveBlockPoolTests
{
    [Theory]
    [InlineData(-1)]
    [InlineData(0)]
    [InlineData(2048)]
    [InlineData(4096)]
    [InlineData(16 * 1024)]
    public void Every_block_is_16_KiB(int asked)
    {
        using var pool = new ReceiveBlockPool();
        using var block = pool.Rent(asked);

        Assert.Equal(16 * 1024, block.Memory.Length);
        Assert.Equal(16 * 1024, pool.MaxBufferSize);
    }

    [Fact]
    public void More_than_a_block_is_refused()
    {
        using var pool = new ReceiveBlockPool();

        Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent((16 * 1024) + 1));
    }

    [Fact]
    public void A_block_given_back_is_rented_again()
    {
        using var pool = new ReceiveBlockPool();
        var first = pool.Rent();
        var array = ArrayOf(first);
        first.Dispose();

        using var second = pool.Rent();

        Assert.Same(array, ArrayOf(second));
    }

    [Fact]
    public void Renting_and_giving_back_allocate_nothing_once_blocks_exist()
    {
        using var pool = new ReceiveBlockPool();
        var warm = Enumerable.Range(0, 4).Select(_ => pool.Rent()).ToList();
        warm.ForEach(block => block.Dispose());

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1000; i++)
        {
            var a = pool.Rent();
            var b = pool.Rent();
            a.Dispose();
            b.Dispose();
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    [Fact]
    public void At_most_the_cap_is_kept_for_reuse()
    {
        const int extra = 10;
        using var pool = new ReceiveBlockPool();
        var burst = Enumerable.Range(0, ReceiveBlockPool.MaxKeptBlocks + extra).Select(_ => pool.Rent()).ToList();
        var given = burst.Select(ArrayOf).ToHashSet(ReferenceEqualityComparer.Instance);
        burst.ForEach(block => block.Dispose());

        var again = Enumerable.Range(0, ReceiveBlockPool.MaxKeptBlocks + extra).Select(_ => pool.Rent()).ToList();
        Assert.Equal(ReceiveBlockPool.MaxKeptBlocks, again.Count(block => given.Contains(ArrayOf(block))));

        // The blocks dropped past the cap leave it as it was: a second burst is kept as far as the first was.
        var regiven = again.Select(ArrayOf).ToHashSet(ReferenceEqualityComparer.Instance);
        again.ForEach(block => block.Dispose());
        var third = Enumerable.Range(0, ReceiveBlockPool.MaxKeptBlocks + extra).Select(_ => pool.Rent()).ToList();
        Assert.Equal(ReceiveBlockPool.MaxKeptBlocks, third.Count(block => regiven.Contains(ArrayOf(block))));
    }

    [Fact]
    public void Blocks_are_pinned_so_that_a_receive_need_not_pin_them()
    {
        using var pool = new ReceiveBlockPool();
        using var block = pool.Rent();

        // The pinned object heap is collected with generation 2, and reports it; a fresh array that is not pinned is in 0.
        Assert.Equal(GC.MaxGeneration, GC.GetGeneration(ArrayOf(block)));
    }

    [Fact]
    public void The_factory_makes_a_pool_of_receive_blocks()
    {
        using var pool = new ReceiveBlockPoolFactory().Create();

        Assert.IsType<ReceiveBlockPool>(pool);
    }

    private static byte[] ArrayOf(IMemoryOwner<byte> block) =>
        MemoryMarshal.TryGetArray<byte>(block.Memory, out var segment) ? segment.Array! : throw new InvalidOperationException("Not an array.");
}
