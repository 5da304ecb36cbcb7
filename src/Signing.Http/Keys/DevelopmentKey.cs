namespace Signing.Http.Keys;

/// <summary>
/// The signing key committed for local runs (SigningServer's appsettings.Development.json and
/// local.settings.sample.json). Everyone can read it, so it is refused in every environment but Development.
/// </summary>
public static class DevelopmentKey
{
    /// <summary>Base64 of the 32 ASCII bytes "DEV-ONLY signing key, NOT SECRET".</summary>
    public const string Base64 = "REVWLU9OTFkgc2lnbmluZyBrZXksIE5PVCBTRUNSRVQ=";
}
