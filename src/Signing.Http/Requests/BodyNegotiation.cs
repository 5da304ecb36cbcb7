using System.Diagnostics.CodeAnalysis;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.RequestDecompression;
using Microsoft.Net.Http.Headers;

namespace Signing.Http.Requests;

/// <summary>
/// What a body may be sent as, decided before a byte of it is read: JSON (<c>application/json</c> or any
/// <c>application/…+json</c>; not <c>text/json</c>) in UTF-8, as it is or with one of the codings gzip, br or deflate,
/// which ASP.NET Core's request decompression providers undo.
/// </summary>
/// <remarks>
/// Written here rather than left to middleware because the Functions worker runs only its own middleware pipeline: what
/// must hold on both hosts lives in code both hosts call. The decompression middleware would also pass an unknown
/// coding through undecoded, and sign the compressed bytes as if they were JSON; here that is a 415.
/// </remarks>
internal static class BodyNegotiation
{
    /// <summary>
    /// Whether the body may be read, and how: as the host gives it (<paramref name="decompressing"/> null), or through
    /// a decompressing stream over <paramref name="compressed"/> (the host's body, guarded, as a stream); and the size
    /// it declares when that is the size of what will be read: a compressed body's <c>Content-Length</c> says nothing
    /// of its JSON.
    /// </summary>
    public static bool TryOpen(
        HttpRequest request,
        IRequestDecompressionProvider decompression,
        Func<Stream> compressed,
        out Stream? decompressing,
        out long? declaredBytes,
        [NotNullWhen(false)] out ProblemHttpResult? problem)
    {
        decompressing = null;
        declaredBytes = null;
        problem = null;
        if (!MediaTypeHeaderValue.TryParse(request.ContentType, out var mediaType) || !IsJson(mediaType))
        {
            problem = SignProblems.UnsupportedMediaType(request.ContentType);
            return false;
        }

        // Every charset given, not only the first (MediaTypeHeaderValue.Charset): a body declared in two is not
        // declared UTF-8.
        var charsets = mediaType.Parameters
            .Where(parameter => parameter.Name.Equals("charset", StringComparison.OrdinalIgnoreCase))
            .Select(parameter => HeaderUtilities.RemoveQuotes(parameter.Value).ToString());
        if (charsets.FirstOrDefault(name => !name.Equals("utf-8", StringComparison.OrdinalIgnoreCase)) is { } other)
        {
            problem = SignProblems.UnsupportedCharset(other);
            return false;
        }

        var encoding = request.Headers.ContentEncoding;
        if (encoding.Count == 0 || (encoding.Count == 1 && encoding.ToString().Trim().Equals("identity", StringComparison.OrdinalIgnoreCase)))
        {
            declaredBytes = request.ContentLength;
            return true;
        }

        // One coding, and one the providers know; the provider matches the header's value itself. The providers wrap
        // Request.Body, so it is swapped for the guarded body first: the decompressor then reads what the stall clock times.
        // Stryker disable once Logical : the decompression provider also returns nothing for more than one coding, so "or"
        // ends in the same 415; the check here says so where the rule is read.
        if (encoding.Count == 1 && !encoding.ToString().Contains(',', StringComparison.Ordinal))
        {
            request.Body = compressed();
            decompressing = decompression.GetDecompressionStream(request.HttpContext);
            if (decompressing is not null)
            {
                return true;
            }
        }

        problem = SignProblems.UnsupportedContentEncoding(encoding.ToString());
        return false;
    }

    // application/json, or an application type with the +json suffix. Not HttpRequest.HasJsonContentType, which takes
    // the suffix on any type (text/x+json, image/x+json).
    private static bool IsJson(MediaTypeHeaderValue mediaType) =>
        mediaType.Type.Equals("application", StringComparison.OrdinalIgnoreCase) &&
        (mediaType.SubType.Equals("json", StringComparison.OrdinalIgnoreCase) || mediaType.Suffix.Equals("json", StringComparison.OrdinalIgnoreCase));
}
