namespace Signing.Transcoding;

/// <summary>What <see cref="EnvelopeTranscoder"/> did with one body.</summary>
/// <param name="BytesWritten">Length of the canonical document written, the bytes a signer hashes.</param>
/// <param name="WidgetCount">How many widgets the envelope held.</param>
/// <param name="BodyBytes">
/// Length of the body read. Zero means the body was empty: nothing was written, and the caller decides what an empty
/// body means (the object path refuses it before parsing).
/// </param>
/// <param name="PlainWidgets">
/// How many of the widgets were copied without the tokenizer (see <see cref="PlainWidget"/>): the fast path's reach,
/// which tells a slow body from a slow server and lets the tests see the fast path taken, not only its output.
/// </param>
public readonly record struct TranscodeSummary(long BytesWritten, int WidgetCount, long BodyBytes, int PlainWidgets)
{
    /// <summary>Whether the body had no bytes at all (whitespace alone is not empty: it is an invalid envelope).</summary>
    public bool IsEmptyBody => BodyBytes == 0;
}
