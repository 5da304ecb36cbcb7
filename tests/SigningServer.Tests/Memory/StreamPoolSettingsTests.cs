using Microsoft.IO;
using Signing.Http.Memory;

namespace SigningServer.Tests.Memory;

/// <summary>
/// The rules a <c>Signing:RecyclableMemoryStream</c> value must meet, at their edges, so the manager is never made
/// with values it would refuse or with a free pool it would let grow without bound.
/// </summary>
public sealed class StreamPoolSettingsTests
{
    [Fact]
    public void The_defaults_pass_and_make_a_manager()
    {
        var options = StreamPoolSettings.DefaultOptions();

        Assert.Empty(StreamPoolSettings.Validate(options));
        Assert.Equal(128 * 1024, new RecyclableMemoryStreamManager(options).Settings.BlockSize);
    }

    [Theory]
    [InlineData(1023, false)]
    [InlineData(1024, true)]
    [InlineData(16 * 1024 * 1024, true)]
    [InlineData(16 * 1024 * 1024 + 1, false)]
    public void Block_size_is_between_1_KiB_and_16_MiB(int blockSize, bool valid)
    {
        var options = StreamPoolSettings.DefaultOptions();
        options.MaximumBufferSize = 32 * 1024 * 1024;
        options.BlockSize = blockSize;

        AssertValid(options, valid, "BlockSize");
    }

    [Theory]
    [InlineData(false, 3 * 1024 * 1024, true)]
    [InlineData(false, 3 * 1024 * 1024 + 1, false)]
    [InlineData(true, 3 * 1024 * 1024, false)]
    [InlineData(true, 4 * 1024 * 1024, true)]
    public void Largest_buffer_is_a_multiple_or_a_power_of_two_multiple_of_the_large_buffer_multiple(bool exponential, int maximumBufferSize, bool valid)
    {
        var options = StreamPoolSettings.DefaultOptions();
        options.UseExponentialLargeBuffer = exponential;
        options.MaximumBufferSize = maximumBufferSize;

        AssertValid(options, valid, "MaximumBufferSize");
    }

    [Fact]
    public void The_defaults_are_the_documented_ones()
    {
        var options = StreamPoolSettings.DefaultOptions();

        Assert.Equal(128 * 1024, options.BlockSize);
        Assert.Equal(1024 * 1024, options.LargeBufferMultiple);
        Assert.Equal(8 * 1024 * 1024, options.MaximumBufferSize);
        Assert.False(options.UseExponentialLargeBuffer);
        Assert.Equal(128L * 1024 * 1024, options.MaximumSmallPoolFreeBytes);
        Assert.Equal(8L * 1024 * 1024, options.MaximumLargePoolFreeBytes);
        Assert.True(options.ThrowExceptionOnToArray);
    }

    [Fact]
    public void Missing_options_are_refused_by_name()
    {
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => StreamPoolSettings.Validate(null!).ToList()).ParamName);
    }

    [Theory]
    [InlineData(1024 * 1024, true)]
    [InlineData((1024 * 1024) - 1024, false)]
    public void Largest_buffer_may_be_exactly_one_block(int maximumBufferSize, bool valid)
    {
        var options = StreamPoolSettings.DefaultOptions();
        options.BlockSize = 1024 * 1024;
        options.LargeBufferMultiple = 1024;
        options.MaximumBufferSize = maximumBufferSize;

        AssertValid(options, valid, "MaximumBufferSize");
    }

    [Theory]
    [InlineData(6000, true)]
    [InlineData(9000, false)]
    public void Exponential_sizes_count_multiples_even_of_a_multiple_that_is_no_power_of_two(int maximumBufferSize, bool valid)
    {
        // 6,000 is 3,000 times 2, a power of two; 9,000 is 3,000 times 3.
        var options = StreamPoolSettings.DefaultOptions();
        options.BlockSize = 1024;
        options.LargeBufferMultiple = 3000;
        options.UseExponentialLargeBuffer = true;
        options.MaximumBufferSize = maximumBufferSize;

        AssertValid(options, valid, "MaximumBufferSize");
    }

    [Theory]
    [InlineData(false, "Signing:RecyclableMemoryStream:MaximumBufferSize must be at least BlockSize and a multiple of LargeBufferMultiple.")]
    [InlineData(true, "Signing:RecyclableMemoryStream:MaximumBufferSize must be at least BlockSize and LargeBufferMultiple times a power of two.")]
    public void Largest_buffer_failure_states_the_rule_of_its_mode(bool exponential, string expected)
    {
        var options = StreamPoolSettings.DefaultOptions();
        options.UseExponentialLargeBuffer = exponential;
        options.MaximumBufferSize = (3 * 1024 * 1024) + 1;

        Assert.Equal([expected], StreamPoolSettings.Validate(options));
    }

    [Theory]
    [InlineData(-1L, false)]
    [InlineData(0L, false)]
    [InlineData(1L, true)]
    public void Free_pools_are_bounded(long bound, bool valid)
    {
        var small = StreamPoolSettings.DefaultOptions();
        small.MaximumSmallPoolFreeBytes = bound;
        var large = StreamPoolSettings.DefaultOptions();
        large.MaximumLargePoolFreeBytes = bound;

        AssertValid(small, valid, "MaximumSmallPoolFreeBytes");
        AssertValid(large, valid, "MaximumLargePoolFreeBytes");
    }

    [Theory]
    [InlineData(1024L, 128 * 1024, 128 * 1024L)]
    [InlineData(43_690L, 128 * 1024, 131_072L)]
    [InlineData(43_691L, 128 * 1024, 262_144L)]
    [InlineData(32L * 1024 * 1024, 128 * 1024, 96L * 1024 * 1024)]
    public void Stream_capacity_is_three_bodies_rounded_up_to_whole_blocks(long maxRequestBodyBytes, int blockSize, long expected)
    {
        Assert.Equal(expected, StreamPoolSettings.MaximumStreamCapacity(maxRequestBodyBytes, blockSize));
    }

    private static void AssertValid(RecyclableMemoryStreamManager.Options options, bool valid, string setting)
    {
        var failures = StreamPoolSettings.Validate(options).ToList();
        if (valid)
        {
            Assert.Empty(failures);
            _ = new RecyclableMemoryStreamManager(options);
        }
        else
        {
            var failure = Assert.Single(failures);
            Assert.StartsWith($"Signing:RecyclableMemoryStream:{setting} ", failure, StringComparison.Ordinal);
        }
    }
}
