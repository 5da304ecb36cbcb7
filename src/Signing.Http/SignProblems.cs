using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Signing.Http.Keys;
using Signing.Http.Requests;

namespace Signing.Http;

/// <summary>
/// Every client error the sign and verify endpoints can answer, as RFC 9457 problem details, so the wording and the
/// status codes live in one place.
/// </summary>
internal static class SignProblems
{
    public static ProblemHttpResult UnknownStrategy(string requested, IReadOnlyList<string> valid) => TypedResults.Problem(
        title: "Unknown strategy",
        detail: $"There is no strategy named '{Excerpt(requested)}'. Valid names: {string.Join(", ", valid)}.",
        statusCode: StatusCodes.Status400BadRequest,
        extensions: new Dictionary<string, object?> { ["validStrategies"] = valid });

    public static ProblemHttpResult StrategyGivenTwice() => TypedResults.Problem(
        title: "Ambiguous strategy",
        detail: "Give the strategy query parameter at most once.",
        statusCode: StatusCodes.Status400BadRequest);

    public static ProblemHttpResult UnsupportedMediaType(string? contentType) => TypedResults.Problem(
        title: "Unsupported media type",
        detail: $"The body must be JSON sent as 'Content-Type: application/json' (or an application/…+json type); got '{Excerpt(contentType ?? "none")}'.",
        statusCode: StatusCodes.Status415UnsupportedMediaType);

    public static ProblemHttpResult EmptyBody() => TypedResults.Problem(
        title: "Empty body",
        detail: "The body must be a JSON object of the form {\"widgets\":[…]}.",
        statusCode: StatusCodes.Status400BadRequest);

    public static ProblemHttpResult BadRequest(BadHttpRequestException exception) => TypedResults.Problem(
        title: exception.StatusCode == StatusCodes.Status408RequestTimeout ? "Body stalled" : "Bad request",
        detail: exception.Message,
        statusCode: exception.StatusCode);

    /// <summary>
    /// A body over what <paramref name="strategy"/> takes (<paramref name="limit"/>, its own limit within the in-flight
    /// budget, which is <c>Signing:MaxRequestBodyBytes</c> or less): the problem names the strategy, its limit, and the
    /// strategies that take the body (<paramref name="takenBy"/>), so a client can choose one instead of retrying in vain.
    /// </summary>
    public static ProblemHttpResult BodyTooLarge(string strategy, long limit, long maxRequestBodyBytes, IReadOnlyList<string> takenBy)
    {
        var why = limit < maxRequestBodyBytes
            ? $" with strategy '{strategy}', whose charge for a larger body would not fit this server's in-flight memory budget"
            : string.Empty;
        var others = takenBy.Count == 0 ? "No strategy takes it here." : $"Strategies that take it: {string.Join(", ", takenBy)}.";
        return TypedResults.Problem(
            title: "Body too large",
            detail: $"The body is larger than the limit of {limit} bytes{why}. {others}",
            statusCode: StatusCodes.Status413PayloadTooLarge,
            extensions: new Dictionary<string, object?>
            {
                ["strategy"] = strategy,
                ["maxBodyBytes"] = limit,
                ["strategiesTakingBody"] = takenBy,
            });
    }

    /// <summary>
    /// A compressed body that inflated past what its bytes on the wire allow: the problem gives the ratio, since the
    /// body limit is not what it passed.
    /// </summary>
    public static ProblemHttpResult InflatesTooFar(DecompressionRatioExceededException exception) => TypedResults.Problem(
        title: "Body too large",
        detail: exception.Message,
        statusCode: StatusCodes.Status413PayloadTooLarge,
        extensions: new Dictionary<string, object?> { ["maxDecompressionRatio"] = exception.Most });

    /// <summary>
    /// A body within <paramref name="strategy"/>'s limit whose canonical document (up to <paramref name="documentBytes"/>)
    /// is so much longer than the body that the strategy's charge for it would not fit the in-flight budget at all: a
    /// 413 naming the strategies that take it (<paramref name="takenBy"/>), not a 503 whose retry would be in vain.
    /// </summary>
    public static ProblemHttpResult DocumentTooLarge(string strategy, long documentBytes, IReadOnlyList<string> takenBy)
    {
        var others = takenBy.Count == 0 ? "No strategy takes it here." : $"Strategies that take it: {string.Join(", ", takenBy)}.";
        return TypedResults.Problem(
            title: "Body too large",
            detail: $"The body's canonical document may take up to {documentBytes} bytes (raw U+0085, U+2028 and U+2029 are " +
                $"escaped in it, and instants spelled out), more than strategy '{strategy}' could hold within this server's " +
                $"in-flight memory budget. {others}",
            statusCode: StatusCodes.Status413PayloadTooLarge,
            extensions: new Dictionary<string, object?>
            {
                ["strategy"] = strategy,
                ["documentBytes"] = documentBytes,
                ["strategiesTakingBody"] = takenBy,
            });
    }

    public static ProblemHttpResult UnsupportedCharset(string charset) => TypedResults.Problem(
        title: "Unsupported media type",
        detail: $"Only UTF-8 is accepted; the body was declared as charset '{Excerpt(charset)}'. Send it as UTF-8, with no charset or 'charset=utf-8'.",
        statusCode: StatusCodes.Status415UnsupportedMediaType);

    public static ProblemHttpResult UnsupportedContentEncoding(string encoding) => TypedResults.Problem(
        title: "Unsupported content encoding",
        detail: $"The body may be sent as is or with exactly one of the codings gzip, br or deflate; got '{Excerpt(encoding)}'.",
        statusCode: StatusCodes.Status415UnsupportedMediaType);

    public static ProblemHttpResult Overloaded(int retryAfterSeconds) => TypedResults.Problem(
        title: "Server busy",
        detail: $"The requests in flight hold as much memory as this server allows; nothing of this request was signed. Retry after {retryAfterSeconds} s.",
        statusCode: StatusCodes.Status503ServiceUnavailable);

    public static ProblemHttpResult TooManyFromClient(int most, int retryAfterSeconds) => TypedResults.Problem(
        title: "Too many requests from this address",
        detail: $"At most {most} requests from one client address are served at once; nothing of this request was read. Retry after {retryAfterSeconds} s.",
        statusCode: StatusCodes.Status429TooManyRequests);

    public static ProblemHttpResult InvalidEnvelope(EnvelopeFormatException exception)
    {
        var extensions = new Dictionary<string, object?>();
        if (exception.Path is not null)
        {
            extensions["path"] = exception.Path;
        }

        if (exception.Line is not null)
        {
            extensions["line"] = exception.Line;
            extensions["position"] = exception.Position;
        }

        return TypedResults.Problem(
            title: "Invalid envelope",
            detail: exception.Message,
            statusCode: StatusCodes.Status400BadRequest,
            extensions: extensions);
    }

    public static ProblemHttpResult MalformedSignatureHeader() => TypedResults.Problem(
        title: "Malformed signature header",
        detail: $"Send exactly one '{SignatureHeader.Name}: {SignatureHeader.Prefix}<hex>' header, where <hex> is the {2 * SignatureHeader.HmacBytes} hex digits of the HMAC-SHA256.",
        statusCode: StatusCodes.Status400BadRequest);

    public static ProblemHttpResult SignatureMismatch() => TypedResults.Problem(
        title: "Signature mismatch",
        detail: "The signature does not match the envelope under any configured key.",
        statusCode: StatusCodes.Status401Unauthorized);

    // Echoing a caller's value back is useful; echoing a megabyte of it is not. SigningLog quotes a requested strategy
    // the same way.
    internal static string Excerpt(string value) => value.Length <= 64 ? value : string.Concat(value.AsSpan(0, 64), "…");
}
