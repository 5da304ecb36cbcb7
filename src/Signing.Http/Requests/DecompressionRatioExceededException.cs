using Microsoft.AspNetCore.Http;

namespace Signing.Http.Requests;

/// <summary>
/// The 413 of a compressed body that inflated past what its bytes on the wire allow (<see cref="DecompressionRatio"/>).
/// A type of its own so that the endpoint answers with the ratio, not with the body limit, which it did not reach.
/// </summary>
internal sealed class DecompressionRatioExceededException(int most)
    : BadHttpRequestException(
        $"The body decompresses to more than {most} times its size on the wire, more than this server takes.",
        StatusCodes.Status413PayloadTooLarge)
{
    /// <summary>The multiple of its bytes on the wire that a body may decompress to.</summary>
    public int Most => most;
}
