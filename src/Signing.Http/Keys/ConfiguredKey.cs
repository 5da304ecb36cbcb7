namespace Signing.Http.Keys;

/// <summary>One key as configuration gives it, before it is decoded, with the names an error message must use.</summary>
/// <param name="Id">The id responses and logs report for it; never the material.</param>
/// <param name="Setting">The configuration path, such as <c>Signing:Keys:2025-06</c>.</param>
/// <param name="EnvironmentVariable">The same setting as an environment variable, such as <c>Signing__Keys__2025-06</c>.</param>
/// <param name="Base64">The configured value, which only the validator and <see cref="SigningKeyRing"/> read.</param>
internal readonly record struct ConfiguredKey(string Id, string Setting, string EnvironmentVariable, string? Base64)
{
    /// <summary>Names the setting, never the value, which the generated record <c>ToString</c> would print.</summary>
    // Stryker disable once String : a safeguard for a debugger or a stray log; nothing calls it and the type is internal.
    public override string ToString() => $"{Setting} (id '{Id}')";
}
