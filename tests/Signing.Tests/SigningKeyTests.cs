using Signing;
using Signing.Generation;

namespace Signing.Tests;

/// <summary>
/// Keys are checked once when configuration is read: anything missing, malformed or shorter than 32 bytes is refused,
/// and nothing a key prints can reveal it.
/// </summary>
public sealed class SigningKeyTests
{
    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData(" ")]
    [InlineData("\t\r\n ")]
    public void Missing_key_is_refused(string? base64)
    {
        Assert.False(SigningKey.TryParseBase64(base64, out var key, out var problem));
        Assert.Null(key);
        Assert.False(string.IsNullOrWhiteSpace(problem));
    }

    [Theory]
    [InlineData("not base64!")]
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")] // padding removed
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8==")] // padding doubled
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh-_")] // base64url alphabet
    public void Text_that_is_not_base64_is_refused(string base64)
    {
        Assert.False(SigningKey.TryParseBase64(base64, out var key, out var problem));
        Assert.Null(key);
        Assert.NotNull(problem);
        Assert.DoesNotContain(base64.Trim(), problem, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(1, false)]
    [InlineData(16, false)]
    [InlineData(31, false)]
    [InlineData(32, true)]
    [InlineData(33, true)]
    [InlineData(64, true)]
    public void Keys_shorter_than_32_bytes_are_refused(int length, bool accepted)
    {
        var base64 = Convert.ToBase64String(Bytes(length));

        Assert.Equal(accepted, SigningKey.TryParseBase64(base64, out var key, out var problem));
        Assert.Equal(accepted, key is not null);
        Assert.Equal(accepted, problem is null);
    }

    [Fact]
    public void Surrounding_whitespace_is_ignored()
    {
        Assert.True(SigningKey.TryParseBase64("  " + TestData.KeyBase64 + "\n", out var key, out _));

        var strategy = SigningStrategies.CreateBuiltIn(key, TestData.CreateStreams())[SigningStrategies.DefaultName];
        var envelope = EnvelopeGenerator.Create(3, seed: 0);
        Assert.Equal(TestData.CreateStrategies()[SigningStrategies.DefaultName].Sign(envelope), strategy.Sign(envelope));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("not base64!")]
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==")] // 31 bytes
    public void FromBase64_throws_FormatException_for_what_TryParseBase64_refuses(string? base64)
    {
        var e = Assert.Throws<FormatException>(() => SigningKey.FromBase64(base64));

        if (base64 is not null)
        {
            Assert.DoesNotContain(base64, e.Message, StringComparison.Ordinal);
        }
    }

    // The problem goes into a start-up error after the setting's name, so its wording is what an operator reads.
    [Theory]
    [InlineData(null, "is missing")]
    [InlineData("", "is missing")]
    [InlineData(" \t\r\n", "is missing")]
    [InlineData("not base64!", "is not valid base64")]
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==", "decodes to 31 bytes; at least 32 are required")]
    public void Each_problem_says_what_is_wrong(string? base64, string expected)
    {
        Assert.False(SigningKey.TryParseBase64(base64, out _, out var problem));
        Assert.Equal(expected, problem);
        Assert.Equal($"The signing key {expected}.", Assert.Throws<FormatException>(() => SigningKey.FromBase64(base64)).Message);
    }

    [Fact]
    public void Constructor_says_how_short_the_material_is()
    {
        var e = Assert.Throws<ArgumentException>(() => new SigningKey(Bytes(31)));

        Assert.Equal("material", e.ParamName);
        Assert.StartsWith("A signing key needs at least 32 bytes; this one has 31.", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_refuses_31_bytes_and_accepts_32()
    {
        Assert.Throws<ArgumentException>(() => new SigningKey(Bytes(31)));
        Assert.NotNull(new SigningKey(Bytes(32)));
    }

    [Fact]
    public void ToString_reveals_neither_the_key_nor_its_encodings()
    {
        var material = Bytes(48);
        var base64 = Convert.ToBase64String(material);
        var key = SigningKey.FromBase64(base64);

        var text = key.ToString();

        Assert.DoesNotContain(base64, text, StringComparison.Ordinal);
        Assert.DoesNotContain(base64[..16], text, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(material)[..16], text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(BitConverter.ToString(material)[..16], text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(string.Join(", ", material.Take(8)), text, StringComparison.Ordinal);
        Assert.Equal("SigningKey(redacted)", text);
        Assert.Equal(text, $"{key}");
    }

    [Fact]
    public void Signature_depends_on_the_key()
    {
        var envelope = EnvelopeGenerator.Create(2, seed: 0);
        var other = new SigningKey(Bytes(32, start: 1));
        var ours = TestData.CreateStrategies();
        var theirs = SigningStrategies.CreateBuiltIn(other, TestData.CreateStreams());

        Assert.All(ours.Names, name => Assert.NotEqual(ours[name].Sign(envelope).Signature, theirs[name].Sign(envelope).Signature));
    }

    [Fact]
    public void Key_keeps_its_own_copy_of_the_material()
    {
        var material = Bytes(32);
        var key = new SigningKey(material);
        var envelope = EnvelopeGenerator.Create(2, seed: 0);
        var before = SigningStrategies.CreateBuiltIn(key, TestData.CreateStreams())[SigningStrategies.DefaultName].Sign(envelope);

        Array.Fill(material, (byte)0xAA);

        var after = SigningStrategies.CreateBuiltIn(key, TestData.CreateStreams())[SigningStrategies.DefaultName].Sign(envelope);
        Assert.Equal(before, after);
    }

    // 0x00, 0x01, … so that every byte, and so every slice of the encodings, is distinctive.
    private static byte[] Bytes(int length, int start = 0) => Enumerable.Range(start, length).Select(i => (byte)i).ToArray();
}
