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
    /// The stream to read the body from (decompressing, when the body is compressed), and the size it declares when
    /// that is the size of what will be read: a compressed body's <c>Content-Length</c> says nothing of its JSON.
    /// </summary>
    public static bool TryOpen(
        HttpRequest request,
        IRequestDecompressionProvider decompression,
        [NotNullWhen(true)] out Stream? body,
        out long? declaredBytes,
        [NotNullWhen(false)] out ProblemHttpResult? problem)
    {
        body = null;
        declaredBytes = null;
        problem = null;
        if (!request.HasJsonContentType())
        {
            problem = SignProblems.UnsupportedMediaType(request.ContentType);
            return false;
        }

        if (MediaTypeHeaderValue.Parse(request.ContentType).Charset is { HasValue: true } charset)
        {
            var name = HeaderUtilities.RemoveQuotes(charset).ToString();
            if (!name.Equals("utf-8", StringComparison.OrdinalIgnoreCase))
            {
                problem = SignProblems.UnsupportedCharset(name);
                return false;
            }
        }

        var encoding = request.Headers.ContentEncoding;
        if (encoding.Count == 0 || (encoding.Count == 1 && encoding.ToString().Trim().Equals("identity", StringComparison.OrdinalIgnoreCase)))
        {
            body = request.Body;
            declaredBytes = request.ContentLength;
            return true;
        }

        // One coding, and one the providers know; the provider matches the header's value itself.
        // Stryker disable once Logical : the decompression provider also returns nothing for more than one coding, so "or"
        // ends in the same 415; the check here says so where the rule is read.
        if (encoding.Count == 1 && !encoding.ToString().Contains(',', StringComparison.Ordinal)
            && decompression.GetDecompressionStream(request.HttpContext) is { } decompressing)
        {
            body = decompressing;
            return true;
        }

        problem = SignProblems.UnsupportedContentEncoding(encoding.ToString());
        return false;
    }
}
