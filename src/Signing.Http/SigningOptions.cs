namespace Signing.Http;

/// <summary>
/// Everything the service reads from configuration section <c>Signing</c> (environment variables
/// <c>Signing__Key</c>, <c>Signing__MaxRequestBodyBytes</c>, <c>Signing__Buffers__…</c>). Checked at start-up by
/// <see cref="SigningOptionsValidator"/>.
/// </summary>
public sealed class SigningOptions
{
    /// <summary>The configuration section these options are bound from.</summary>
    public const string SectionName = "Signing";

    /// <summary>The HMAC key, base64, at least 32 bytes decoded. Never logged and never returned.</summary>
    public string? Key { get; set; }

    /// <summary>
    /// The largest body accepted; larger ones get 413 before they are read to the end. 32 MiB is about 29 times the
    /// write-up's 3,000-widget envelope. Both hosts set Kestrel's own limit to this value, because Kestrel's default
    /// (30,000,000 bytes) is lower and the Functions host turns its rejection into a 500.
    /// </summary>
    public long MaxRequestBodyBytes { get; set; } = 32 * 1024 * 1024;

    /// <summary>Sizes of the buffer pool behind the <c>pooled</c> strategy and request bodies.</summary>
    public PooledBufferOptions Buffers { get; set; } = new();
}
