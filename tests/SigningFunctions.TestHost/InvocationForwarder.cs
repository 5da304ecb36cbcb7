using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Extensions;
using SigningFunctions.TestHost.Rpc;
using Yarp.ReverseProxy.Forwarder;

namespace SigningFunctions.TestHost;

/// <summary>
/// Serves one HTTP request to a function as the host's proxying does with the ASP.NET Core integration: a new
/// invocation id, an <c>InvocationRequest</c> over gRPC naming the function and carrying an <c>RpcHttp</c> stand-in
/// under the trigger's binding name, and the request itself forwarded by YARP's <see cref="IHttpForwarder"/> to the
/// worker's Kestrel with the id in <c>x-ms-invocation-id</c>. The body streams through both ways; nothing is buffered
/// here. The response comes back through the forwarder, the <c>InvocationResponse</c> over gRPC, and a failed one is
/// written to the worker's output; a request the forwarder could not deliver is the host's 500.
/// </summary>
internal sealed class InvocationForwarder(WorkerChannel channel, Uri workerUri, IHttpForwarder forwarder, HttpMessageInvoker client, WorkerOutput output)
{
    // The worker's answer arrives over gRPC just after the forwarded response; this only bounds a lost one.
    private static readonly TimeSpan InvocationResponseWait = TimeSpan.FromSeconds(30);

    // HTTP/1.1 to the worker, which is what the host's forwarder ends up speaking to a cleartext Kestrel, and the
    // host's idle allowance of 240 s: a request that stalls is the endpoint's to cut off (Signing:BodyStallTimeout).
    private static readonly ForwarderRequestConfig RequestConfig = new()
    {
        Version = System.Net.HttpVersion.Version11,
        VersionPolicy = HttpVersionPolicy.RequestVersionOrLower,
        ActivityTimeout = TimeSpan.FromSeconds(240),
    };

    private readonly string _destination = workerUri.GetLeftPart(UriPartial.Authority);

    /// <summary>Invokes <paramref name="route"/>'s function for the request in <paramref name="context"/>.</summary>
    /// <param name="context">The client's request, whose response the forwarder writes.</param>
    /// <param name="route">The function the request's route and method matched.</param>
    /// <returns>A task that completes when the response is written and the invocation has ended.</returns>
    public async Task InvokeAsync(HttpContext context, FunctionRoute route)
    {
        var invocationId = Guid.NewGuid().ToString();
        context.Items[InvocationIdTransformer.ItemKey] = invocationId;
        var request = new InvocationRequest
        {
            InvocationId = invocationId,
            FunctionId = route.FunctionId,
            TraceContext = new RpcTraceContext { TraceParent = TraceParent() },
            InputData =
            {
                new ParameterBinding
                {
                    Name = route.BindingName,
                    Data = new TypedData { Http = new RpcHttp { Method = context.Request.Method, Url = context.Request.GetEncodedUrl() } },
                },
            },
        };
        var invoked = channel.InvokeAsync(request);

        var error = await forwarder.SendAsync(context, _destination, client, RequestConfig, InvocationIdTransformer.Instance);
        if (error != ForwarderError.None)
        {
            // The host fails the invocation ("Failed to proxy request with ForwarderError"), and a failed invocation
            // whose response has not started is the host's 500, where YARP alone would answer 502
            // (azure-functions-host#10519, #10623). The worker may never see the request (or saw part of it); it ends
            // the invocation itself, later.
            if (!context.Response.HasStarted)
            {
                context.Response.StatusCode = StatusCodes.Status500InternalServerError;
            }

            output.Log("testhost", $"Forwarding invocation {invocationId} of '{route.Name}' failed: {error} {context.Features.Get<IForwarderErrorFeature>()?.Exception?.Message}");
            _ = invoked.ContinueWith(t => Report(route, invocationId, t), TaskScheduler.Default);
            return;
        }

        try
        {
            // WaitAsync drops its timer as soon as the response arrives: under load, no timer outlives its request.
            await invoked.WaitAsync(InvocationResponseWait, context.RequestAborted);
        }
        catch (TimeoutException)
        {
            output.Log("testhost", $"No InvocationResponse for invocation {invocationId} of '{route.Name}' within {InvocationResponseWait.TotalSeconds} s.");
            return;
        }
        catch (Exception) when (invoked.IsFaulted || context.RequestAborted.IsCancellationRequested)
        {
            // Reported below, or the client has gone and no one waits for the answer.
        }

        if (invoked.IsCompleted)
        {
            Report(route, invocationId, invoked);
        }
    }

    // The request's own W3C trace context when the client sent one (ASP.NET Core made it the current activity's
    // parent), else a new one, as the host starts an activity per invocation.
    private static string TraceParent() =>
        Activity.Current?.Id ?? $"00-{ActivityTraceId.CreateRandom()}-{ActivitySpanId.CreateRandom()}-00";

    private void Report(FunctionRoute route, string invocationId, Task<InvocationResponse> invoked)
    {
        if (invoked.IsFaulted)
        {
            output.Log("testhost", $"Invocation {invocationId} of '{route.Name}': {invoked.Exception.InnerException?.Message}");
        }
        else if (invoked.Result.Result is { } result && result.Status != StatusResult.Types.Status.Success)
        {
            output.Log("testhost", $"Invocation {invocationId} of '{route.Name}' ended {result.Status}: {result.Exception?.Message}{Environment.NewLine}{result.Exception?.StackTrace}");
        }
    }
}
