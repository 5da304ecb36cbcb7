using System.Net;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer on real Kestrel at a loopback port the OS picks, with a 2 MiB body limit (room for the write-up's
/// 1 MB envelope), its log kept and every request's end recorded: the host for raw-socket clients that lie about
/// their length or go away, where the only evidence of a fault on the server is what it logged and answered.
/// </summary>
public class HostileKestrelFactory : SigningServerFactory
{
    /// <summary>The body limit this host is configured with.</summary>
    public const int Limit = 2 * 1024 * 1024;

    private readonly CapturingLoggerProvider _log = new();
    private readonly ResponseStatusRecorder _responses = new();

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public HostileKestrelFactory()
        : this(new Dictionary<string, string?>
        {
            ["Signing:MaxRequestBodyBytes"] = Limit.ToString(System.Globalization.CultureInfo.InvariantCulture),
        })
    {
    }

    /// <summary>The same host, with the test key and <paramref name="settings"/>.</summary>
    protected HostileKestrelFactory(IReadOnlyDictionary<string, string?> settings)
        : base(TestingEnvironment, new Dictionary<string, string?>(settings) { ["Signing:Key"] = TestKey.Base64 })
    {
        // An explicit endpoint, for the reason KestrelSigningServerFactory gives.
        UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
    }

    /// <summary>How many log entries and recorded responses there are now, to look only at what comes after.</summary>
    internal (int Log, int Responses) Mark() => (_log.Entries.Count, _responses.Responses.Count);

    /// <summary>
    /// Checks that since <paramref name="mark"/> nothing was logged at Error or above, as an unhandled exception or as a
    /// warning with an exception, and that no request ended in a 5xx or with an exception escaping the application;
    /// a 503 counts only unless <paramref name="refusalsExpected"/>, for a test that fills the budget on purpose.
    /// </summary>
    internal void AssertNoServerFaultSince((int Log, int Responses) mark, string because, bool refusalsExpected = false)
    {
        var entries = _log.Entries.Skip(mark.Log).ToArray();
        // A warning with an exception is a fault too: Kestrel's "Connection processing ended abnormally" is how it ends a
        // connection whose request left its reader mid-read.
        var faults = entries.Where(e =>
            e.Level >= LogLevel.Error ||
            (e.Level >= LogLevel.Warning && e.Exception is not null) ||
            e.Message.Contains("unhandled exception", StringComparison.OrdinalIgnoreCase)).ToArray();
        Assert.True(faults.Length == 0, $"{because}: logged {string.Join(Environment.NewLine, faults.Select(f => f.ToString()))}");

        var responses = _responses.Responses.Skip(mark.Responses).ToArray();
        var failed = responses.Where(r =>
            (r.Status >= 500 && !(refusalsExpected && r.Status == StatusCodes.Status503ServiceUnavailable)) || r.Escaped is not null).ToArray();
        Assert.True(failed.Length == 0, $"{because}: {string.Join(Environment.NewLine, failed.Select(r => r.ToString()))}");
    }

    /// <summary>The requests that ended since <paramref name="mark"/>.</summary>
    internal IReadOnlyList<ResponseStatusRecorder.RecordedResponse> ResponsesSince((int Log, int Responses) mark) =>
        _responses.Responses.Skip(mark.Responses).ToArray();

    /// <summary>How many requests to <paramref name="path"/> have reached the application so far.</summary>
    internal int StartedCount(string path) => _responses.Started.Count(started => started == path);

    /// <inheritdoc/>
    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        base.ConfigureWebHost(builder);
        builder.ConfigureServices(services =>
        {
            services.AddSingleton<ILoggerProvider>(_log);
            services.AddSingleton<IStartupFilter>(_responses);
        });
    }
}
