using System.Diagnostics.CodeAnalysis;

namespace Signing.Strategies;

/// <summary>
/// Hex the way the write-up's code formats it. The faithful strategies keep this chain (and its three string
/// allocations) on purpose, so that their cost is the cost the write-up measured.
/// </summary>
internal static class LegacyHex
{
    [SuppressMessage("Performance", "CA1872:Prefer Convert.ToHexStringLower", Justification = "Reproduces the write-up's cost on purpose.")]
    public static string Format(byte[] hash) =>
        BitConverter.ToString(hash).Replace("-", string.Empty, StringComparison.Ordinal).ToLowerInvariant();
}
