using System.Security.Cryptography;

namespace SigningServer.Tests.Hosts;

/// <summary>The key every test host signs with, and the HMAC a correct server must produce with it.</summary>
internal static class TestKey
{
    /// <summary>The 32 bytes 0x00, 0x01, …, 0x1f: python3 -c "import base64; print(base64.b64encode(bytes(range(32))).decode())".</summary>
    public const string Base64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    public static byte[] Bytes { get; } = Convert.FromBase64String(Base64);

    /// <summary>What the server must answer for <paramref name="canonicalUtf8"/>, computed independently of the server.</summary>
    public static string SignatureOf(byte[] canonicalUtf8) =>
        Convert.ToHexStringLower(HMACSHA256.HashData(Bytes, canonicalUtf8));
}
