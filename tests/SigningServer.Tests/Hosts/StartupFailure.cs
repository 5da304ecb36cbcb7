using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace SigningServer.Tests.Hosts;

/// <summary>Starts a host that must fail validation, and returns the failure as the host reported it.</summary>
internal static class StartupFailure
{
    /// <summary>The start of the one line a host logs when a setting is bad (SigningHostExtensions.RunSigning).</summary>
    public const string Prefix = "Signing cannot start; fix these settings: ";

    /// <summary>
    /// Starts a host in <paramref name="environment"/> with <paramref name="settings"/>, and returns what was thrown,
    /// the failures the host logged (the text after <see cref="Prefix"/>), and everything it logged.
    /// </summary>
    public static (Exception Thrown, string Failure, IReadOnlyList<string> Log) Catch(
        string environment, IReadOnlyDictionary<string, string?> settings)
    {
        using var factory = new ConfiguredServerFactory(environment, settings);

        var thrown = Assert.ThrowsAny<Exception>(() => factory.CreateClient());

        // The host checks its settings before it starts and, finding one bad, logs one critical entry naming it and
        // stops: no exception reaches the log, so no stack trace does either.
        var entry = Assert.Single(factory.Entries, e => e.Level == LogLevel.Critical);
        Assert.StartsWith(Prefix, entry.Message, StringComparison.Ordinal);
        Assert.Null(entry.Exception);
        Assert.DoesNotContain(factory.LoggedExceptions, e => Find(e) is not null);
        return (thrown, entry.Message[Prefix.Length..], factory.LogEntries.ToList());
    }

    private static OptionsValidationException? Find(Exception? exception)
    {
        for (var e = exception; e is not null; e = e.InnerException)
        {
            if (e is OptionsValidationException validation)
            {
                return validation;
            }
        }

        return null;
    }
}
