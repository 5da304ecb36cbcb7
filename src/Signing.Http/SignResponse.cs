using Signing.Http.Keys;

namespace Signing.Http;

/// <summary>The 200 body of <c>POST /api/sign</c>.</summary>
/// <param name="Signature">HMAC-SHA256 of the canonical bytes, 64 lowercase hex characters.</param>
/// <param name="Strategy">The canonical name of the strategy that signed, whatever case the caller used.</param>
/// <param name="Algorithm">Always <c>HMAC-SHA256</c>; stated so a receiver need not assume it.</param>
/// <param name="WidgetCount">How many widgets were signed.</param>
/// <param name="BytesSigned">Length of the canonical UTF-8 document that was hashed.</param>
/// <param name="KeyId">
/// The id of the key that signed (<see cref="SigningKeyRing.DefaultKeyId"/> with the single-key form), so a receiver
/// that holds several keys during a rotation knows which one to check with. The id, never the key.
/// </param>
public sealed record SignResponse(string Signature, string Strategy, string Algorithm, int WidgetCount, long BytesSigned, string KeyId);
