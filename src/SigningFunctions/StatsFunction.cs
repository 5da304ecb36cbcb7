using Microsoft.AspNetCore.Http;
using Microsoft.Azure.Functions.Worker;
using Signing.Http;

namespace SigningFunctions;

/// <summary>
/// <c>GET /api/stats</c> on Azure Functions: a thin adapter over <see cref="StatsEndpoint"/>, so a load test reads the
/// same snapshot from this host as from SigningServer, measured inside the worker that signs.
/// </summary>
/// <param name="endpoint">The endpoint registered by <see cref="SigningServiceCollectionExtensions.AddSigning"/>.</param>
public sealed class StatsFunction(StatsEndpoint endpoint)
{
    /// <summary>
    /// Returns the snapshot. Function-level authorization, like <c>sign</c>: it shows the process's memory and load, so
    /// in Azure it needs a function key (<c>x-functions-key</c> or <c>?code=</c>); <c>func start</c> does not ask for one.
    /// </summary>
    /// <param name="request">The ASP.NET Core request (ASP.NET Core integration).</param>
    /// <returns>The endpoint's <see cref="IResult"/>, executed by the integration against the request's <see cref="HttpContext"/>.</returns>
    [Function("stats")]
    public IResult Run([HttpTrigger(AuthorizationLevel.Function, "get", Route = "stats")] HttpRequest request) =>
        endpoint.Handle(request);
}
