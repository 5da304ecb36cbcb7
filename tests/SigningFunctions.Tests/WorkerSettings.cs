using System.Globalization;

namespace SigningFunctions.Tests;

/// <summary>
/// App settings for a worker under the test host, passed as environment variables as Azure passes app settings. A
/// set is one worker: tests that ask for the same set share it.
/// </summary>
/// <param name="Name">What the set is for.</param>
/// <param name="Environment">The settings.</param>
public sealed record WorkerSettings(string Name, IReadOnlyDictionary<string, string?> Environment)
{
    /// <summary>The body limit of <see cref="Shared"/>.</summary>
    public const int BodyLimit = 256 * 1024;

    /// <summary>
    /// The in-flight budget of <see cref="SmallBudget"/>: the least the validator takes (1 MiB). A request is charged
    /// what it has come to hold, so one <c>transcode</c> upload that has sent most of a 360 KB body holds
    /// (2 × 128 KiB blocks + 32 KiB) + 2 bytes per body byte, about 1 MB of it, and leaves less than any other request's
    /// fixed part (288 KiB).
    /// </summary>
    public const long BudgetBytes = 1024 * 1024;

    /// <summary>The body limit of <see cref="SmallBudget"/>: above the held body, which <c>transcode</c> takes within the budget.</summary>
    public const int SmallBudgetBodyLimit = 512 * 1024;

    /// <summary>
    /// The worker most tests share: the test key, a 256 KiB body limit and the shortest stall timeout (1 s), none of
    /// which changes a successful request. Inherited settings that would change the worker are removed.
    /// </summary>
    public static WorkerSettings Shared { get; } = new("shared", With(new()
    {
        ["Signing__MaxRequestBodyBytes"] = BodyLimit.ToString(CultureInfo.InvariantCulture),
        ["Signing__BodyStallTimeout"] = "00:00:01",
        // The request lines WorkerLog finds a request's end by; the app keeps them out of its logs otherwise.
        ["Logging__LogLevel__Microsoft.AspNetCore.Hosting.Diagnostics"] = "Information",
    }));

    /// <summary>A worker whose in-flight budget one large <c>transcode</c> upload can fill while it is held half-sent.</summary>
    public static WorkerSettings SmallBudget { get; } = new("small budget", With(new()
    {
        ["Signing__MaxRequestBodyBytes"] = SmallBudgetBodyLimit.ToString(CultureInfo.InvariantCulture),
        ["Signing__MaxInFlightBytes"] = BudgetBytes.ToString(CultureInfo.InvariantCulture),
    }));

    /// <summary>The host's body limit (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>) of <see cref="SmallHostLimit"/>.</summary>
    public const int HostBodyLimit = 64 * 1024;

    /// <summary>A host whose own body limit is below the app's, as 100 MiB is below the most the app may allow.</summary>
    public static WorkerSettings SmallHostLimit { get; } = new("small host limit", With(new()
    {
        ["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"] = HostBodyLimit.ToString(CultureInfo.InvariantCulture),
        ["Signing__MaxRequestBodyBytes"] = (4 * HostBodyLimit).ToString(CultureInfo.InvariantCulture),
    }));

    /// <summary>The test key and <paramref name="settings"/>, with inherited settings that would change the worker removed.</summary>
    public static Dictionary<string, string?> With(Dictionary<string, string?> settings)
    {
        var environment = new Dictionary<string, string?>
        {
            ["Signing__Key"] = KnownAnswers.KeyBase64,
            // Production, as in Azure, whatever the machine running the tests sets.
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = null,
            ["DOTNET_ENVIRONMENT"] = null,
            ["ASPNETCORE_ENVIRONMENT"] = null,
            // The collector the published app chooses, not one the machine imposes.
            ["DOTNET_gcServer"] = null,
            ["DOTNET_GCHeapHardLimit"] = null,
        };
        foreach (var (name, value) in settings)
        {
            environment[name] = value;
        }

        return environment;
    }
}
