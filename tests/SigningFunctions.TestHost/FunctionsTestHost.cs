using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Yarp.ReverseProxy.Forwarder;

namespace SigningFunctions.TestHost;

/// <summary>
/// Runs a published Azure Functions isolated-worker app the way the Functions host does, for machines where neither
/// Core Tools nor the host can run: a FunctionRpc gRPC server on loopback (HTTP/2 without TLS), the worker started from
/// its worker.config.json with the host's command line and environment, the host's handshake (StartStream,
/// WorkerInitRequest, FunctionsMetadataRequest, a FunctionLoadRequest per function), then an HTTP front end whose
/// routes come from the functions' HTTP triggers (<c>/{routePrefix}/{route}</c>, an empty 404 for no route and for a
/// method the trigger does not list, as the host answers), each request sent to the worker as an <c>InvocationRequest</c> plus the request itself
/// forwarded by YARP to the worker's Kestrel, as the host's proxying does for the ASP.NET Core integration.
/// </summary>
/// <remarks>
/// <para>
/// What the real host does that this does not: Azure's front end (TLS, its own connection and request limits, the
/// 230 s request timeout), function keys (<c>authLevel</c> is read but not enforced, as under <c>func start</c>; in
/// Azure a <c>function</c>-level trigger answers 401 without a key before the worker sees the request), retries and
/// worker restarts, the scale controller and placeholder mode, host.json's concurrency and HTTP throttles
/// (<c>maxConcurrentRequests</c>, <c>maxOutstandingRequests</c>, dynamic concurrency), Application Insights, and the
/// host's own middleware and logs. The host's front-end body limit (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>, 100 MiB
/// by default) is kept, because a client sees it.
/// </para>
/// <para>
/// Why that is enough to compare strategies: everything left out happens before the request reaches the worker or
/// after its response leaves, once per request and independent of the body's content, so it costs every strategy the
/// same. What a strategy changes (how the body is read, buffered, parsed and signed, and what that costs the
/// collector) happens inside the worker process, which runs here exactly as published, behind the same two hops the
/// host adds: the gRPC invocation message and the forwarded HTTP request.
/// </para>
/// </remarks>
public sealed class FunctionsTestHost : IAsyncDisposable
{
    private static readonly TimeSpan WorkerGrace = TimeSpan.FromSeconds(10);

    private readonly WebApplication _grpc;
    private readonly WorkerProcess _worker;
    private readonly WorkerChannel _channel;
    private readonly WebApplication _front;
    private readonly HttpMessageInvoker _client;

    private FunctionsTestHost(
        WebApplication grpc, WorkerProcess worker, WorkerChannel channel, WebApplication front, HttpMessageInvoker client,
        WorkerOutput output, Uri workerHttpUri, IReadOnlyList<FunctionRoute> routes)
    {
        _grpc = grpc;
        _worker = worker;
        _channel = channel;
        _front = front;
        _client = client;
        Output = output;
        WorkerHttpUri = workerHttpUri;
        Routes = routes;
        BaseAddress = new Uri(front.Urls.First());
    }

    /// <summary>Where the front end listens: send requests to <c>{BaseAddress}api/sign</c>.</summary>
    public Uri BaseAddress { get; }

    /// <summary>Where the worker's Kestrel listens (its <c>HttpUri</c> capability); the front end forwards there.</summary>
    public Uri WorkerHttpUri { get; }

    /// <summary>The HTTP-triggered functions the worker loaded, as routed.</summary>
    public IReadOnlyList<FunctionRoute> Routes { get; }

    /// <summary>The worker's logs (RpcLog), standard output and standard error.</summary>
    public WorkerOutput Output { get; }

    /// <summary>Completes with the worker's exit code when it exits.</summary>
    public Task<int> WorkerExited => _worker.Exited;

    /// <summary>The worker's exit code, or null while it runs.</summary>
    public int? WorkerExitCode => _worker.Exited.IsCompletedSuccessfully ? _worker.Exited.Result : null;

    /// <summary>Starts the app in <paramref name="appDirectory"/> with <paramref name="environment"/> added to its settings.</summary>
    /// <param name="appDirectory">The folder <c>dotnet publish</c> wrote the app to.</param>
    /// <param name="environment">App settings for the worker.</param>
    /// <param name="cancellationToken">Abandons the start.</param>
    /// <returns>The running host, ready for requests.</returns>
    public static Task<FunctionsTestHost> StartAsync(
        string appDirectory, IReadOnlyDictionary<string, string?> environment, CancellationToken cancellationToken = default) =>
        StartAsync(new FunctionsTestHostOptions { AppDirectory = appDirectory, Environment = environment }, cancellationToken);

    /// <summary>
    /// Starts the worker, goes through the handshake and then opens the front end, so the front end's
    /// "Now listening on" line means every function is loaded.
    /// </summary>
    /// <param name="options">What to run and where.</param>
    /// <param name="cancellationToken">Abandons the start.</param>
    /// <returns>The running host, ready for requests.</returns>
    /// <exception cref="WorkerExitedException">The worker exited before it was ready.</exception>
    /// <exception cref="InvalidOperationException">The app folder is not a published worker, or the handshake failed.</exception>
    /// <exception cref="TimeoutException">The worker did not finish the handshake within <see cref="FunctionsTestHostOptions.StartTimeout"/>.</exception>
    public static async Task<FunctionsTestHost> StartAsync(FunctionsTestHostOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        var appDirectory = Path.GetFullPath(options.AppDirectory);
        var settings = HostSettings.Read(appDirectory, options.Environment);
        var output = new WorkerOutput(options.Echo);
        var workerId = Guid.NewGuid().ToString();
        var channel = new WorkerChannel(workerId, output);

        var grpc = BuildGrpcServer(channel);
        await grpc.StartAsync(cancellationToken);
        WorkerProcess? worker = null;
        HttpMessageInvoker? client = null;
        WebApplication? front = null;
        try
        {
            worker = WorkerProcess.Start(appDirectory, new Uri(grpc.Urls.First()), workerId, options.Environment, output);
            var (httpUri, functions) = await HandshakeAsync(channel, worker, appDirectory, options.StartTimeout, output, cancellationToken);
            await WaitForWorkerHttpAsync(httpUri, worker, output, options.StartTimeout, cancellationToken);
            var routes = functions.Select(f => FunctionRoute.From(f, settings.RoutePrefix)).OfType<FunctionRoute>().ToList();

            client = new HttpMessageInvoker(new SocketsHttpHandler
            {
                UseProxy = false,
                AllowAutoRedirect = false,
                AutomaticDecompression = DecompressionMethods.None,
                UseCookies = false,
                ActivityHeadersPropagator = null,
                ConnectTimeout = TimeSpan.FromSeconds(15),
            });
            // A non-null copy for the forwarder to capture; the catch below disposes client if the start fails.
            var forwardingClient = client;
            front = BuildFrontEnd(options, settings, routes, forwarder => new InvocationForwarder(channel, httpUri, forwarder, forwardingClient, output));
            await front.StartAsync(cancellationToken);
            return new FunctionsTestHost(grpc, worker, channel, front, client, output, httpUri, routes);
        }
        catch
        {
            if (front is not null)
            {
                await front.DisposeAsync();
            }

            client?.Dispose();
            channel.Terminate(TimeSpan.Zero);
            if (worker is not null)
            {
                await worker.StopAsync(TimeSpan.FromSeconds(2));
                worker.Dispose();
            }

            await grpc.StopAsync(CancellationToken.None);
            await grpc.DisposeAsync();
            throw;
        }
    }

    /// <summary>Stops the front end, asks the worker to stop (killing it after a grace period) and stops the gRPC server.</summary>
    /// <returns>A task that completes when everything has stopped.</returns>
    public async ValueTask DisposeAsync()
    {
        try
        {
            await _front.StopAsync(CancellationToken.None);
            await _front.DisposeAsync();
        }
        finally
        {
            // The worker is a process of its own: it is stopped whatever the front end's stop threw.
            _channel.Terminate(WorkerGrace);
            await _worker.StopAsync(WorkerGrace);
            _worker.Dispose();
            await _grpc.StopAsync(CancellationToken.None);
            await _grpc.DisposeAsync();
            _client.Dispose();
        }
    }

    private static async Task<(Uri HttpUri, IReadOnlyList<Rpc.RpcFunctionMetadata> Functions)> HandshakeAsync(
        WorkerChannel channel, WorkerProcess worker, string appDirectory, TimeSpan timeout, WorkerOutput output, CancellationToken cancellationToken)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        limit.CancelAfter(timeout);
        var handshake = channel.HandshakeAsync(appDirectory, limit.Token);
        try
        {
            if (await Task.WhenAny(handshake, worker.Exited) == worker.Exited)
            {
                throw new WorkerExitedException(await worker.Exited, output);
            }

            return await handshake;
        }
        catch (Exception e) when (e is not WorkerExitedException)
        {
            // A worker that fails its start-up often closes the stream a moment before it exits: its exit says more.
            if (await Task.WhenAny(worker.Exited, Task.Delay(TimeSpan.FromSeconds(5), CancellationToken.None)) == worker.Exited)
            {
                throw new WorkerExitedException(await worker.Exited, output);
            }

            if (e is OperationCanceledException && !cancellationToken.IsCancellationRequested)
            {
                throw new TimeoutException($"The worker did not finish the handshake within {timeout}. Its last words:{Environment.NewLine}{output.Tail()}", e);
            }

            throw;
        }
    }

    // The worker reports its HttpUri during the handshake, before its Kestrel necessarily accepts connections; the host
    // covers that gap by retrying the first forwarded requests. Waiting here for the port to accept instead makes the
    // front end's "Now listening on" line mean that the first request is served, which is what a test or a load run
    // needs, and leaves the forwarder without retries that would hide a worker that stops accepting later.
    private static async Task WaitForWorkerHttpAsync(Uri httpUri, WorkerProcess worker, WorkerOutput output, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            try
            {
                using var probe = new System.Net.Sockets.TcpClient();
                await probe.ConnectAsync(httpUri.Host, httpUri.Port, cancellationToken);
                return;
            }
            catch (System.Net.Sockets.SocketException) when (DateTime.UtcNow < deadline && !worker.Exited.IsCompleted)
            {
                await Task.Delay(50, cancellationToken);
            }
            catch (System.Net.Sockets.SocketException e)
            {
                if (worker.Exited.IsCompleted)
                {
                    throw new WorkerExitedException(await worker.Exited, output);
                }

                throw new TimeoutException($"The worker's Kestrel did not accept connections at {httpUri} within {timeout}.", e);
            }
        }
    }

    private static WebApplication BuildGrpcServer(WorkerChannel channel)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton<IHostLifetime, NoSignalLifetime>();

        // gRPC over HTTP/2 without TLS on its own loopback port, as the host listens for its workers.
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http2));
        builder.Services.AddGrpc(grpc =>
        {
            // The host passes --grpcMaxMessageLength int.MaxValue and accepts as much.
            grpc.MaxReceiveMessageSize = null;
            grpc.MaxSendMessageSize = null;
        });
        builder.Services.AddSingleton(channel);
        var app = builder.Build();
        app.MapGrpcService<FunctionRpcService>();
        return app;
    }

    private static WebApplication BuildFrontEnd(
        FunctionsTestHostOptions options, HostSettings settings, IReadOnlyList<FunctionRoute> routes, Func<IHttpForwarder, InvocationForwarder> createForwarder)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        if (options.Echo is not null)
        {
            // Kestrel's "Now listening on: http://127.0.0.1:PORT", which the load scripts wait for; nothing per request.
            builder.Logging.AddSimpleConsole();
            builder.Logging.SetMinimumLevel(LogLevel.Warning);
            builder.Logging.AddFilter("Microsoft.Hosting.Lifetime", LogLevel.Information);
        }

        builder.Services.AddSingleton<IHostLifetime, NoSignalLifetime>();
        builder.WebHost.UseUrls(options.Urls);
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Limits.MaxRequestBodySize = settings.MaxRequestBodySize);
        builder.Services.AddHttpForwarder();
        var app = builder.Build();
        var forwarder = createForwarder(app.Services.GetRequiredService<IHttpForwarder>());
        // The host matches a request's path and method together, so a method no trigger on the path lists is the same
        // empty 404 as an unknown path, not a 405 (azure-functions-host#10098).
        foreach (var path in routes.GroupBy(route => route.Template, StringComparer.OrdinalIgnoreCase))
        {
            app.Map("/" + path.Key, context => path.FirstOrDefault(route => route.Accepts(context.Request.Method)) is { } route
                ? forwarder.InvokeAsync(context, route)
                : NotFound(context));
        }

        return app;
    }

    private static Task NotFound(HttpContext context)
    {
        context.Response.StatusCode = StatusCodes.Status404NotFound;
        return Task.CompletedTask;
    }
}
