using Microsoft.AspNetCore.Http;
using Yarp.ReverseProxy.Forwarder;

namespace SigningFunctions.TestHost;

/// <summary>
/// Forwards the request as it came (YARP's default copy of method, path, query, headers and a streamed body) with the
/// header the worker's ASP.NET Core integration pairs it by: <c>x-ms-invocation-id</c>, the id of the
/// <c>InvocationRequest</c> sent over gRPC for the same request.
/// </summary>
internal sealed class InvocationIdTransformer : HttpTransformer
{
    /// <summary>The header the worker's integration reads.</summary>
    public const string HeaderName = "x-ms-invocation-id";

    /// <summary>The key under which the request's invocation id is kept in <see cref="HttpContext.Items"/>.</summary>
    public static readonly object ItemKey = new();

    /// <summary>The one instance: the invocation id travels with the request, not with the transformer.</summary>
    public static readonly InvocationIdTransformer Instance = new();

    private InvocationIdTransformer()
    {
    }

    /// <inheritdoc/>
    public override async ValueTask TransformRequestAsync(
        HttpContext httpContext, HttpRequestMessage proxyRequest, string destinationPrefix, CancellationToken cancellationToken)
    {
        await base.TransformRequestAsync(httpContext, proxyRequest, destinationPrefix, cancellationToken);
        proxyRequest.Headers.Remove(HeaderName);
        proxyRequest.Headers.TryAddWithoutValidation(HeaderName, (string)httpContext.Items[ItemKey]!);
    }
}
