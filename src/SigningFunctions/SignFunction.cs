using Microsoft.AspNetCore.Http;
using Microsoft.Azure.Functions.Worker;
using Signing.Http;

namespace SigningFunctions;

/// <summary>
/// <c>POST /api/sign</c> on Azure Functions: a thin adapter over <see cref="SignEndpoint"/>, so this host parses,
/// signs and fails exactly as SigningServer does.
/// </summary>
/// <param name="endpoint">The endpoint registered by <see cref="SigningServiceCollectionExtensions.AddSigning"/>.</param>
public sealed class SignFunction(SignEndpoint endpoint)
{
    /// <summary>
    /// Signs the envelope in the request body. Function-level authorization: callers in Azure send a function key
    /// (<c>x-functions-key</c> header or <c>?code=</c>); <c>func start</c> does not ask for one.
    /// </summary>
    /// <param name="request">The ASP.NET Core request, whose body is still a stream (ASP.NET Core integration).</param>
    /// <param name="cancellationToken">Signalled when the host cancels the invocation.</param>
    /// <returns>
    /// The endpoint's <see cref="IResult"/> as it is: the ASP.NET Core integration executes an <see cref="IResult"/>
    /// return value against the request's <see cref="HttpContext"/>, as a minimal API would, so there is nothing to
    /// translate.
    /// </returns>
    [Function("sign")]
    public Task<IResult> RunAsync(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "sign")] HttpRequest request,
        CancellationToken cancellationToken) =>
        endpoint.HandleAsync(request, cancellationToken);
}
