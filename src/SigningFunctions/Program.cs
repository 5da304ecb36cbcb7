using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Signing.Http;

var builder = FunctionsApplication.CreateBuilder(args);

// ASP.NET Core integration: the host forwards each HTTP request to a Kestrel server inside this worker, so the body
// streams to SignEndpoint as an HttpRequest instead of arriving whole in a gRPC message.
builder.ConfigureFunctionsWebApplication();

// The same registration as SigningServer, with the same in-flight budget, stall cut-off, decompression and
// negotiation, which live in the endpoint because only the Functions middleware pipeline runs here. Kestrel gets no
// client-facing limits: its one client is the Functions host, and those belong to the platform.
//
// The development key is accepted only when IHostEnvironment is Development. The worker (2.x) reads AZURE_FUNCTIONS_*
// environment variables into its configuration, so AZURE_FUNCTIONS_ENVIRONMENT, which Core Tools sets to Development
// under 'func start', names the environment; in Azure it is unset: Production.
builder.Services.AddSigning();

// ASP.NET Core's request lines carry the whole URL, and in Azure the host forwards it with ?code=, the function key:
// they stay out of the logs, as SigningServer's appsettings.json keeps them out of its own.
builder.Logging.AddFilter("Microsoft.AspNetCore", LogLevel.Warning);

// Kestrel drains what the endpoint refuses, so the host's forwarder passes the 413 on instead of failing mid-body.
builder.Services.Configure<KestrelServerOptions>(kestrel => SigningKestrelLimits.ApplyBehindFunctionsHost(kestrel.Limits));

// A bad setting ends the worker with one line on standard error, which the host keeps in its logs, and exit code 1.
return builder.Build().RunSigning();
