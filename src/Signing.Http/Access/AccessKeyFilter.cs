using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Primitives;

namespace Signing.Http.Access;

/// <summary>
/// Lets a request through to the endpoint only with one of the configured <see cref="AccessKeys"/>, when any is
/// configured: in the <c>x-functions-key</c> header, or, without that header, in the <c>code</c> query parameter, the
/// order the Functions host reads them in. Anything else is answered 401 with a problem, before the body is read.
/// </summary>
/// <remarks>
/// An endpoint filter rather than ASP.NET Core's authentication: there is no identity to establish, only the one shared
/// secret the Functions host also checks, and the answer must be the problem details every other refusal is. The key is
/// never logged or echoed; the query parameter stays where it is, read by nothing else (strategy negotiation reads only
/// <c>strategy</c>).
/// </remarks>
public sealed class AccessKeyFilter(AccessKeys keys) : IEndpointFilter
{
    /// <inheritdoc/>
    public ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        if (keys.IsOpen || keys.Matches(Presented(context.HttpContext.Request)))
        {
            return next(context);
        }

        return ValueTask.FromResult<object?>(Refused());
    }

    /// <summary>The answer without a valid key: 401, with a problem that says where a key goes and never which keys exist.</summary>
    public static ProblemHttpResult Refused() => TypedResults.Problem(
        title: "Access key required",
        detail: $"Send a valid access key in the '{AccessKeys.HeaderName}' header or the '{AccessKeys.QueryName}' query parameter.",
        statusCode: StatusCodes.Status401Unauthorized);

    // More than one value of either is no key: which of them to try would be a guess.
    private static string? Presented(HttpRequest request) =>
        request.Headers.TryGetValue(AccessKeys.HeaderName, out var header)
            ? Single(header)
            : Single(request.Query[AccessKeys.QueryName]);

    private static string? Single(StringValues values) => values.Count == 1 ? values[0] : null;
}
