using Microsoft.Extensions.Options;

namespace SigningServer.Tests;

/// <summary>Starts a host that must fail validation, and returns the failure as the host reported it.</summary>
internal static class StartupFailure
{
    /// <summary>
    /// Starts a host in <paramref name="environment"/> with <paramref name="settings"/>, and returns what was thrown, the
    /// <see cref="OptionsValidationException"/> the host logged, and everything it logged.
    /// </summary>
    public static (Exception Thrown, OptionsValidationException Validation, IReadOnlyList<string> Log) Catch(
        string environment, IReadOnlyDictionary<string, string?> settings)
    {
        using var factory = new ConfiguredServerFactory(environment, settings);

        var thrown = Assert.ThrowsAny<Exception>(() => factory.CreateClient());

        // The failure normally arrives here as it is. But the app runs on its own thread under WebApplicationFactory,
        // and when that thread disposes the failed host before the factory asks it for its lifetime, the factory
        // throws ObjectDisposedException instead (a race in Mvc.Testing's DeferredHost). The host logs the real
        // failure ("Hosting failed to start") before it rethrows, so the log always has it, as an operator would see it.
        var logged = factory.LoggedExceptions.Select(Find).FirstOrDefault(e => e is not null);
        Assert.True(logged is not null, "The start-up failure was not logged; thrown: " + thrown);
        if (Find(thrown) is { } validation)
        {
            Assert.Equal(logged.Message, validation.Message);
        }

        return (thrown, logged, factory.LogEntries.ToList());
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
