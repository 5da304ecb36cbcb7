using Microsoft.IO;
using Signing.Http.Memory;

namespace SigningServer.Tests;

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
