using Microsoft.AspNetCore.Http;
using Microsoft.Azure.Functions.Worker;
using Signing.Http;

namespace SigningFunctions;

/// <summary>
/// <c>POST /api/verify</c> on Azure Functions: a thin adapter over <see cref="VerifyEndpoint"/>, so this host checks
/// signatures, and fails, exactly as SigningServer does.
/// </summary>
/// <param name="endpoint">The endpoint registered by <see cref="SigningServiceCollectionExtensions.AddSigning"/>.</param>
public sealed class VerifyFunction(VerifyEndpoint endpoint)
{
    /// <summary>
    /// Checks the <c>X-Signature</c> header against the envelope in the request body under every configured key.
    /// Function-level authorization, like <c>sign</c>: callers in Azure send a function key (<c>x-functions-key</c>
    /// header or <c>?code=</c>); <c>func start</c> does not ask for one.
    /// </summary>
    /// <param name="request">The ASP.NET Core request, whose body is still a stream (ASP.NET Core integration).</param>
    /// <param name="cancellationToken">Signalled when the host cancels the invocation.</param>
    /// <returns>The endpoint's <see cref="IResult"/>, executed by the integration against the request's <see cref="HttpContext"/>.</returns>
    [Function("verify")]
    public Task<IResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "verify")] HttpRequest request,
        CancellationToken cancellationToken) =>
        endpoint.HandleAsync(request, cancellationToken);
}
