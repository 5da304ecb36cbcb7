using System.Security.Cryptography;
using Signing.Hashing;

namespace Signing.Tests.Hashing;

/// <summary>
/// The buffer writer <c>utf8</c> and the transcoder write into: every byte written reaches the hash (each hash, when a
/// verify signs with several keys), in order, through one small buffer that is lent out whole or in the part still free.
/// </summary>
/// <remarks>Expected MACs are from Python's <c>hmac</c> module over the bytes <c>i % 251</c> for i from 0 to 99.</remarks>
public sealed class HmacSinkTests
{
    private const int BufferBytes = 16;

    // python3 -c "import hmac,hashlib; print(hmac.new(b'0123456789abcdef0123456789abcdef', bytes(i % 251 for i in range(100)), hashlib.sha256).hexdigest())"
    private const string MacOfData = "a933a46116a2c7441e1eccff0f0c6a730c1b8b175ea1f88ec32636e8aa3ccba1";

    // The same with the key b'fedcba9876543210fedcba9876543210'.
    private const string OtherKeyMacOfData = "b355148b8dfdf721b755fa5da899ef33d2632c66b86cc32f6be540572ecdffc1";

    private static readonly byte[] Key = "0123456789abcdef0123456789abcdef"u8.ToArray();

    private static readonly byte[] OtherKey = "fedcba9876543210fedcba9876543210"u8.ToArray();

    private static readonly byte[] Data = Enumerable.Range(0, 100).Select(i => (byte)(i % 251)).ToArray();

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(BufferBytes)]
    public void Every_byte_written_is_hashed_in_order_whatever_the_size_asked_for(int sizeHint)
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Key);
        var sink = new HmacSink(hash, new byte[BufferBytes]);

        WriteData(sink, sizeHint, useMemory: false);
        sink.Flush();

        Assert.Equal(MacOfData, Convert.ToHexStringLower(hash.GetHashAndReset()));
    }

    [Fact]
    public void Memory_and_spans_lend_the_same_buffer()
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Key);
        var sink = new HmacSink(hash, new byte[BufferBytes]);

        WriteData(sink, sizeHint: 5, useMemory: true);
        sink.Flush();

        Assert.Equal(MacOfData, Convert.ToHexStringLower(hash.GetHashAndReset()));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public void Several_hashes_each_get_every_byte(int count)
    {
        using var first = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Key);
        using var second = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, OtherKey);
        IncrementalHash[] hashes = count == 1 ? [first] : [first, second];
        var sink = new HmacSink(hashes, new byte[BufferBytes]);

        WriteData(sink, sizeHint: 3, useMemory: false);
        sink.Flush();

        Assert.Equal(MacOfData, Convert.ToHexStringLower(first.GetHashAndReset()));
        if (count == 2)
        {
            Assert.Equal(OtherKeyMacOfData, Convert.ToHexStringLower(second.GetHashAndReset()));
        }
    }

    [Fact]
    public void No_hashes_is_refused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new HmacSink([], new byte[BufferBytes]));
    }

    [Fact]
    public void The_free_part_is_lent_while_it_holds_what_is_asked_and_the_whole_buffer_once_flushed()
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Key);
        var sink = new HmacSink(hash, new byte[BufferBytes]);

        sink.Advance(10);
        Assert.Equal(6, sink.GetSpan(6).Length); // exactly enough left: no flush
        Assert.Equal(6, sink.GetMemory().Length); // nothing asked for: at least one byte, which is there
        Assert.Equal(BufferBytes, sink.GetSpan(7).Length); // not enough: flushed
        sink.Advance(BufferBytes);
        Assert.Equal(BufferBytes, sink.GetMemory(0).Length); // full: flushed even when nothing is asked for
    }

    [Fact]
    public void Advancing_outside_the_lent_part_is_refused()
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Key);
        var sink = new HmacSink(hash, new byte[BufferBytes]);

        Assert.Throws<ArgumentOutOfRangeException>(() => sink.Advance(-1));
        sink.Advance(10);
        Assert.Throws<ArgumentOutOfRangeException>(() => sink.Advance(7));
        sink.Advance(6);
        Assert.Throws<ArgumentOutOfRangeException>(() => sink.Advance(1));
    }

    [Fact]
    public void Asking_for_more_than_the_buffer_is_refused()
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, Key);
        var sink = new HmacSink(hash, new byte[BufferBytes]);

        Assert.Equal(BufferBytes, sink.GetSpan(BufferBytes).Length);
        Assert.Throws<ArgumentOutOfRangeException>(() => sink.GetSpan(BufferBytes + 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => sink.GetMemory(BufferBytes + 1));
    }

    // Writes Data in pieces of at most sizeHint bytes (one when it is 0), each into what the sink lends.
    private static void WriteData(HmacSink sink, int sizeHint, bool useMemory)
    {
        var rest = Data.AsSpan();
        while (!rest.IsEmpty)
        {
            var target = useMemory ? sink.GetMemory(sizeHint).Span : sink.GetSpan(sizeHint);
            Assert.True(target.Length >= Math.Max(sizeHint, 1));
            var count = Math.Min(Math.Min(Math.Max(sizeHint, 1), target.Length), rest.Length);
            rest[..count].CopyTo(target);
            sink.Advance(count);
            rest = rest[count..];
        }
    }
}
