using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Signing.Http;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// The signing services without a server, as <see cref="SigningServiceCollectionExtensions.AddSigning"/> registers
/// them for either host, for tests that call an endpoint on a real <c>DefaultHttpContext</c>.
/// </summary>
internal static class TestServices
{
    public static ServiceProvider Build(string key) =>
        Build(new Dictionary<string, string?> { ["Signing:Key"] = key });

    /// <summary>The services configured with <paramref name="settings"/> (which must include a key) instead of a key alone.</summary>
    public static ServiceProvider Build(IEnumerable<KeyValuePair<string, string?>> settings)
    {
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(settings)
            .Build();
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(configuration);
        services.AddSingleton<IHostEnvironment>(new TestHostEnvironment(SigningServerFactory.TestingEnvironment));
        services.AddLogging();
        services.AddSigning();
        return services.BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true, ValidateScopes = true });
    }
}
