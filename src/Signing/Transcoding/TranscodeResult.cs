namespace Signing.Transcoding;

/// <summary>What <see cref="TranscodingSigner"/> produced for one body.</summary>
/// <param name="Signatures">
/// HMAC-SHA256 of the canonical bytes as 64 lowercase hex characters, one per key in the order the signer was given
/// them; none when the body was empty.
/// </param>
/// <param name="BytesSigned">Length of the canonical document, so callers can see what was hashed.</param>
/// <param name="WidgetCount">How many widgets the envelope held.</param>
/// <param name="BodyBytes">Length of the body read; zero for an empty body, which is not signed.</param>
public readonly record struct TranscodeResult(IReadOnlyList<string> Signatures, long BytesSigned, int WidgetCount, long BodyBytes)
{
    /// <summary>
    /// Whether the body had no bytes at all, which the HTTP layer answers as an empty body rather than as an invalid
    /// envelope (whitespace alone is an invalid envelope, as on the object path).
    /// </summary>
    public bool IsEmptyBody => BodyBytes == 0;

    /// <summary>The signature with the first (or only) key.</summary>
    /// <exception cref="InvalidOperationException">The body was empty, so nothing was signed.</exception>
    public string Signature => Signatures.Count > 0 ? Signatures[0] : throw new InvalidOperationException("The body was empty: nothing was signed.");
}
