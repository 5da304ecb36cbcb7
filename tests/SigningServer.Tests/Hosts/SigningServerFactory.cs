using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Mvc.Testing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Signing;
using Signing.Http.Keys;
using Signing.Http.Memory;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer on the in-memory TestServer, in the "Testing" environment (so no appsettings.Development.json and
/// no development key), signing with <see cref="TestKey"/>. Subclasses change the settings or the server.
/// </summary>
public class SigningServerFactory : WebApplicationFactory<Program>
{
    /// <summary>An environment that is neither Development nor Production, named explicitly.</summary>
    public const string TestingEnvironment = "Testing";

    private readonly string _environment;
    private readonly Dictionary<string, string?> _settings;

    /// <summary>The usual test host: the test key and default limits.</summary>
    public SigningServerFactory()
        : this(TestingEnvironment, new Dictionary<string, string?> { ["Signing:Key"] = TestKey.Base64 })
    {
    }

    /// <summary>A host in <paramref name="environment"/> with exactly <paramref name="settings"/> added to its configuration.</summary>
    protected SigningServerFactory(string environment, IReadOnlyDictionary<string, string?> settings)
    {
        _environment = environment;
        _settings = new Dictionary<string, string?>(settings);
    }

    /// <summary>The host's stream pool, to check that every block went back.</summary>
    public StreamPool Pool => Services.GetRequiredService<StreamPool>();

    /// <summary>The host's in-flight budget, charged from the moment a request starts reading its body until it ends.</summary>
    public InFlightBudget Budget => Services.GetRequiredService<InFlightBudget>();

    /// <summary>The host's envelope strategies, for what only they have (such as the memory they are charged).</summary>
    public SigningStrategies Strategies => Services.GetRequiredService<SigningStrategies>();

    /// <summary>Every strategy name the server offers, transcode included, so tests cover every one.</summary>
    public IReadOnlyList<string> StrategyNames => Services.GetRequiredService<SigningKeyRing>().StrategyNames;

    /// <summary>
    /// A client that sends request content as it is, without the redirect handler that buffers every request body (and
    /// so gives it a Content-Length) in case it has to be sent again.
    /// </summary>
    public HttpClient CreateStreamingClient()
    {
        // On Kestrel the factory learns the server's address (into ClientOptions) only once the server has started.
        StartServer();
        return CreateClient(new WebApplicationFactoryClientOptions { AllowAutoRedirect = false, BaseAddress = ClientOptions.BaseAddress });
    }

    /// <inheritdoc/>
    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.UseEnvironment(_environment);
        builder.ConfigureAppConfiguration((_, configuration) => configuration.AddInMemoryCollection(_settings));
    }
}
