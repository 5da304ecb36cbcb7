namespace Signing.Http;

/// <summary>The outcome of checking one claimed signature against every key.</summary>
/// <param name="KeyId">The id of the key whose HMAC matched, or <see langword="null"/> when none did.</param>
/// <param name="KeysTried">How many keys were signed with before the answer was known.</param>
/// <param name="BytesSigned">Length of the canonical document (the same under every key).</param>
internal readonly record struct VerifyMatch(string? KeyId, int KeysTried, long BytesSigned);
