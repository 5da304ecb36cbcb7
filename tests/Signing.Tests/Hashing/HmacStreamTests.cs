using System.Security.Cryptography;
using Signing.Hashing;

namespace Signing.Tests.Hashing;

/// <summary>
/// The stream <c>streaming</c> serializes into: what is written is hashed and counted, and the stream says plainly that
/// it keeps nothing, so a caller that tries to read, seek or measure it fails at once instead of getting wrong data.
/// </summary>
public sealed class HmacStreamTests
{
    private const string NotKept = "The bytes are hashed, not kept.";

    private const string WriteOnly = "The stream is write-only.";

    // python3 -c "import hmac,hashlib; print(hmac.new(b'0123456789abcdef0123456789abcdef', b'bcdefxyz', hashlib.sha256).hexdigest())"
    private const string MacOfBcdefxyz = "c4a5afbc6db982aab4565f4e51792bb414870b576a78643614a115d746b8f86c";

    [Fact]
    public void Writes_of_arrays_and_spans_are_hashed_and_counted()
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, "0123456789abcdef0123456789abcdef"u8);
        using var stream = new HmacStream(hash);

        stream.Write("abcdefg"u8.ToArray(), 1, 5);
        stream.Write("xyz"u8);
        stream.Flush();

        Assert.Equal(8, stream.BytesWritten);
        Assert.Equal(MacOfBcdefxyz, Convert.ToHexStringLower(hash.GetHashAndReset()));
    }

    [Fact]
    public void It_can_only_be_written()
    {
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, "0123456789abcdef0123456789abcdef"u8);
        using var stream = new HmacStream(hash);

        Assert.True(stream.CanWrite);
        Assert.False(stream.CanRead);
        Assert.False(stream.CanSeek);
        Assert.Equal(NotKept, Assert.Throws<NotSupportedException>(() => stream.Length).Message);
        Assert.Equal(NotKept, Assert.Throws<NotSupportedException>(() => stream.Position).Message);
        Assert.Equal(NotKept, Assert.Throws<NotSupportedException>(() => stream.Position = 0).Message);
        Assert.Equal(WriteOnly, Assert.Throws<NotSupportedException>(() => stream.Read(new byte[1], 0, 1)).Message);
        Assert.Equal(WriteOnly, Assert.Throws<NotSupportedException>(() => stream.Seek(0, SeekOrigin.Begin)).Message);
        Assert.Equal(WriteOnly, Assert.Throws<NotSupportedException>(() => stream.SetLength(0)).Message);
    }
}
