using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace SigningServer.Tests.Hosts;

/// <summary>A host with any environment and settings whose log is kept, for tests of start-up validation.</summary>
public sealed class ConfiguredServerFactory(string environment, IReadOnlyDictionary<string, string?> settings)
    : SigningServerFactory(environment, settings)
{
    private readonly CapturingLoggerProvider _log = new();

    /// <summary>Everything the host logged, as it was logged.</summary>
    internal IEnumerable<CapturingLoggerProvider.LogEntry> Entries => _log.Entries;

    /// <summary>
    /// Everything the host logged, one string per entry with all it carries (message, event name, structured fields,
    /// exception), so that a search for what must never be logged misses nothing a log store would keep.
    /// </summary>
    public IEnumerable<string> LogEntries => _log.Entries.Select(e => e.AllText);

    /// <summary>The exceptions the host logged, such as the one that stopped it from starting.</summary>
    public IEnumerable<Exception> LoggedExceptions => _log.Entries.Select(e => e.Exception).OfType<Exception>();

    /// <inheritdoc/>
    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        base.ConfigureWebHost(builder);
        builder.ConfigureServices(services => services.AddSingleton<ILoggerProvider>(_log));
    }
}
