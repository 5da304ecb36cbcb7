using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Extensions.Hosting;
using Signing.Http;

var builder = FunctionsApplication.CreateBuilder(args);

// ASP.NET Core integration: the host forwards each HTTP request to a Kestrel server inside this worker, so the body
// streams to SignEndpoint as an HttpRequest instead of arriving whole in a gRPC message.
builder.ConfigureFunctionsWebApplication();

// The same registration as SigningServer. Its Kestrel body limit (Signing:MaxRequestBodyBytes) reaches the worker's
// Kestrel too: ConfigureFunctionsWebApplication adds that Kestrel to this host, and it reads
// IOptions<KestrelServerOptions> from these services.
//
// The development key is accepted only when IHostEnvironment is Development. This builder takes the environment
// from DOTNET_ENVIRONMENT; some worker versions ignore AZURE_FUNCTIONS_ENVIRONMENT (which Core Tools sets to
// Development), so local.settings.sample.json sets DOTNET_ENVIRONMENT as well. In Azure neither is set: Production.
builder.Services.AddSigning();

builder.Build().Run();
