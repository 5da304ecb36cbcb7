using System.Diagnostics.CodeAnalysis;

namespace Signing;

/// <summary>
/// The HMAC key, decoded and checked once at start-up so that a bad setting stops the app instead of failing (or,
/// worse, signing with a weak key) on the first request.
/// </summary>
/// <remarks><see cref="ToString"/> never shows the material, so the key cannot reach a log by accident.</remarks>
public sealed class SigningKey
{
    /// <summary>HMAC-SHA256 is only as strong as its key; 32 bytes matches the hash size (RFC 2104, section 3).</summary>
    public const int MinimumBytes = 32;

    /// <summary>Creates a key from raw bytes; throws when they are too short to be a safe HMAC-SHA256 key.</summary>
    public SigningKey(ReadOnlySpan<byte> material)
    {
        if (material.Length < MinimumBytes)
        {
            throw new ArgumentException($"A signing key needs at least {MinimumBytes} bytes; this one has {material.Length}.", nameof(material));
        }

        Material = material.ToArray();
    }

    /// <summary>The key bytes, for the strategies in this assembly only; never mutated.</summary>
    internal byte[] Material { get; }

    /// <summary>
    /// Decodes a base64 key from configuration. <paramref name="problem"/> says what is wrong without repeating the
    /// value, so it can go into a start-up error as it is.
    /// </summary>
    public static bool TryParseBase64(string? base64, [NotNullWhen(true)] out SigningKey? key, [NotNullWhen(false)] out string? problem)
    {
        key = null;
        if (string.IsNullOrWhiteSpace(base64))
        {
            problem = "is missing";
            return false;
        }

        byte[] bytes;
        try
        {
            bytes = Convert.FromBase64String(base64.Trim());
        }
        catch (FormatException)
        {
            problem = "is not valid base64";
            return false;
        }

        if (bytes.Length < MinimumBytes)
        {
            problem = $"decodes to {bytes.Length} bytes; at least {MinimumBytes} are required";
            return false;
        }

        key = new SigningKey(bytes);
        problem = null;
        return true;
    }

    /// <summary>Decodes a base64 key that is expected to be valid, such as one configuration validation has passed.</summary>
    /// <exception cref="FormatException">The key is missing, not base64, or too short.</exception>
    public static SigningKey FromBase64(string? base64) =>
        TryParseBase64(base64, out var key, out var problem) ? key : throw new FormatException($"The signing key {problem}.");

    /// <inheritdoc/>
    public override string ToString() => "SigningKey(redacted)";
}
