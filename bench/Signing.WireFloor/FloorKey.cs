using System.Diagnostics.CodeAnalysis;
using Signing;
using Signing.Http;

namespace Signing.WireFloor;

/// <summary>
/// The HMAC key the floor signs with, read from the setting SigningServer reads (<c>Signing:Key</c>, base64), so that a
/// load run starts both with the same environment and the floor hashes with a key of the same length.
/// </summary>
internal static class FloorKey
{
    /// <summary>The setting, as a start-up error names it.</summary>
    public const string SettingName = SigningOptions.SectionName + ":Key";

    /// <summary>
    /// The key's bytes, or a <paramref name="problem"/> that says what is wrong without repeating the value.
    /// </summary>
    public static bool TryRead(IConfiguration configuration, [NotNullWhen(true)] out byte[]? key, [NotNullWhen(false)] out string? problem)
    {
        key = null;
        var base64 = configuration[SettingName];
        if (string.IsNullOrWhiteSpace(base64))
        {
            problem = "is missing";
            return false;
        }

        try
        {
            key = Convert.FromBase64String(base64.Trim());
        }
        catch (FormatException)
        {
            problem = "is not valid base64";
            return false;
        }

        if (key.Length < SigningKey.MinimumBytes)
        {
            problem = $"decodes to {key.Length} bytes; at least {SigningKey.MinimumBytes} are required";
            key = null;
            return false;
        }

        problem = null;
        return true;
    }
}
