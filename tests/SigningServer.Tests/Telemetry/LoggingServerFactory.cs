using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// The usual test host, plus a second key so that verify logs a rotation, with every log entry and its fields kept.
/// </summary>
public sealed class LoggingServerFactory : SigningServerFactory
{
    // Bytes 100 to 131: python3 -c "import base64; print(base64.b64encode(bytes(range(100,132))).decode())"
    public const string OtherKeyBase64 = "ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM=";

    private readonly CapturingLoggerProvider _log = new();

    /// <summary>Creates the factory: <see cref="TestKey"/> as <c>default</c> (active), the other key as <c>next</c>.</summary>
    public LoggingServerFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:Keys:next"] = OtherKeyBase64,
            ["Signing:ActiveKeyId"] = "default",
        })
    {
    }

    internal IReadOnlyCollection<CapturingLoggerProvider.LogEntry> Entries => _log.Entries;

    /// <inheritdoc/>
    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        base.ConfigureWebHost(builder);
        builder.ConfigureServices(services => services.AddSingleton<ILoggerProvider>(_log));
    }
}
