namespace Signing.Http;

/// <summary>The 200 body of <c>POST /api/verify</c>: the signature matched.</summary>
/// <param name="KeyId">
/// The id of the key that matched, which tells an operator mid-rotation whether senders still use the old key. The
/// id, never the key.
/// </param>
/// <param name="Strategy">The canonical name of the strategy that recomputed the signature.</param>
/// <param name="Algorithm">Always <c>HMAC-SHA256</c>.</param>
/// <param name="WidgetCount">How many widgets the verified envelope holds.</param>
/// <param name="BytesSigned">Length of the canonical UTF-8 document whose HMAC was compared.</param>
public sealed record VerifyResponse(string KeyId, string Strategy, string Algorithm, int WidgetCount, long BytesSigned);
