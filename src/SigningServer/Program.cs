using Signing.Http;
using Signing.Http.Access;

// The content root, where appsettings*.json are read from, is the app's own folder, not the working directory:
// 'dotnet /path/to/SigningServer.dll' started from anywhere else would otherwise run without them.
var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });

// 'func start' listens on 7071, so clients and the k6 script cannot tell the two hosts apart; --urls, ASPNETCORE_URLS
// and ASPNETCORE_HTTP_PORTS or _HTTPS_PORTS (which .NET's container images set) still win.
if (new[] { WebHostDefaults.ServerUrlsKey, WebHostDefaults.HttpPortsKey, WebHostDefaults.HttpsPortsKey }.All(key => string.IsNullOrEmpty(builder.Configuration[key])))
{
    builder.WebHost.UseUrls("http://localhost:7071");
}

// This Kestrel faces clients directly, so it gets the client-facing limits the Functions worker's Kestrel does not need.
builder.WebHost.ConfigureKestrel(kestrel => SigningKestrelLimits.ApplyClientFacing(kestrel.Limits));
builder.Services.AddSigning();

// The Functions host checks function keys before the worker sees a request; here, with no host in front, the same
// keys (Signing:AccessKeys) are checked by SigningServer itself. Health stays open for probes.
builder.Services.AddSigningAccessKeys();

// One client address may have only so many requests in flight (Signing:MaxConcurrentRequestsPerClient; unset, no limit).
builder.Services.AddSigningClientLimits();

var app = builder.Build();
app.UseExceptionHandler();
app.UseStatusCodePages();
app.UseSigningClientLimits();
var keyed = app.MapGroup("/api").RequireSigningAccessKey();
keyed.MapPost("/sign", (HttpRequest request, SignEndpoint endpoint, CancellationToken cancellationToken) =>
    endpoint.HandleAsync(request, cancellationToken));
keyed.MapPost("/verify", (HttpRequest request, VerifyEndpoint endpoint, CancellationToken cancellationToken) =>
    endpoint.HandleAsync(request, cancellationToken));
keyed.MapGet("/stats", (HttpRequest request, StatsEndpoint endpoint) => endpoint.Handle(request));
// Health checks answer any method unless told; probes GET or HEAD, and anything else is 405 as on the other routes.
app.MapHealthChecks("/api/health", SigningHealthResponse.Options)
    .WithMetadata(new HttpMethodMetadata([HttpMethods.Get, HttpMethods.Head]));
return app.RunSigning();

/// <summary>The entry point, public so that integration tests can host it with WebApplicationFactory.</summary>
public partial class Program;
