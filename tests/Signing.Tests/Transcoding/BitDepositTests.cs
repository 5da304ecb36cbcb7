using System.Runtime.Intrinsics.X86;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// <see cref="CanonicalRun"/> picks every fourth quote of a block with x86's <c>pdep</c>, and where a processor has none
/// with <see cref="CanonicalRun.DepositBitsOneByOne"/>, which only these tests run on the machines CI has.
/// </summary>
public sealed class BitDepositTests
{
    [Theory]
    [InlineData(0b1011UL, 0b1111_0000UL, 0b1011_0000UL)]
    [InlineData(0b0101UL, 0b1001_0110UL, 0b0001_0010UL)]
    [InlineData(ulong.MaxValue, 0x8000_0000_0000_0001UL, 0x8000_0000_0000_0001UL)]
    [InlineData(0b10UL, 0x8000_0000_0000_0001UL, 0x8000_0000_0000_0000UL)]
    [InlineData(0x1111_1111_1111_1111UL, ulong.MaxValue, 0x1111_1111_1111_1111UL)]
    [InlineData(0UL, ulong.MaxValue, 0UL)]
    [InlineData(ulong.MaxValue, 0UL, 0UL)]
    public void Each_set_bit_of_the_mask_is_kept_if_the_pattern_bit_of_its_rank_is_set(ulong pattern, ulong mask, ulong expected)
    {
        Assert.Equal(expected, CanonicalRun.DepositBitsOneByOne(pattern, mask));
    }

    [Fact]
    public void One_bit_at_a_time_gives_what_the_processor_gives_and_a_count_of_ranks_gives()
    {
        var random = new Random(23);
        for (var i = 0; i < 100_000; i++)
        {
            // Masks as sparse as a block's quotes and as dense as all bits; patterns of every density too.
            var mask = (ulong)random.NextInt64() & (ulong)random.NextInt64() & (ulong)random.NextInt64();
            mask = i % 2 == 0 ? mask : mask | (ulong)random.NextInt64();
            var pattern = i % 3 == 0 ? 0x1111_1111_1111_1111UL << (i & 3) : (ulong)random.NextInt64();
            var deposited = CanonicalRun.DepositBitsOneByOne(pattern, mask);
            Assert.Equal(ByRank(pattern, mask), deposited);
            if (Bmi2.X64.IsSupported)
            {
                Assert.Equal(Bmi2.X64.ParallelBitDeposit(pattern, mask), deposited);
            }
        }
    }

    // The definition, bit by bit: the mask's set bit of rank r is kept if the pattern's bit r is set.
    private static ulong ByRank(ulong pattern, ulong mask)
    {
        ulong kept = 0;
        var rank = 0;
        for (var bit = 0; bit < 64; bit++)
        {
            if ((mask >> bit & 1) == 1)
            {
                kept |= (pattern >> rank & 1) << bit;
                rank++;
            }
        }

        return kept;
    }
}
