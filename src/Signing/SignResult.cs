namespace Signing;

/// <summary>What a strategy produced for one envelope.</summary>
/// <param name="Signature">HMAC-SHA256 of the canonical bytes as 64 lowercase hex characters.</param>
/// <param name="BytesSigned">Length of the canonical UTF-8 document, so callers can see what was hashed.</param>
public readonly record struct SignResult(string Signature, long BytesSigned);
