using System.Security.Cryptography;
using System.Text.Json;

namespace Signing.Benchmarks;

/// <summary>
/// The least any request path can do with a body's bytes: read every token once, and hash them once. The request-path
/// questions measure against their sum, which leaves out only writing the canonical bytes.
/// </summary>
internal static class BodyFloors
{
    /// <summary>Every token of <paramref name="json"/> read once with <see cref="Utf8JsonReader"/>, nothing decoded or kept.</summary>
    public static long CountTokens(byte[] json)
    {
        var reader = new Utf8JsonReader(json, isFinalBlock: true, state: default);
        var tokens = 0L;
        while (reader.Read())
        {
            tokens++;
        }

        return tokens;
    }

    /// <summary>HMAC-SHA256 of <paramref name="data"/> in one call over one array: the least hashing it can cost.</summary>
    public static byte Hmac(byte[] data)
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(BenchmarkInputs.KeyBytes, data, mac);
        return mac[0];
    }
}
