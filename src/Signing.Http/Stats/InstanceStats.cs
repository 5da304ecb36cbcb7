using System.Diagnostics;
using Microsoft.Extensions.Configuration;

namespace Signing.Http.Stats;

/// <summary>
/// Which instance and process answered <c>GET /api/stats</c>. When the app has scaled out, each process counts only the
/// requests it served, so two snapshots can be subtracted only when both came from the same process: a load test
/// compares these before it does.
/// </summary>
/// <param name="Id">
/// The platform's name for the instance: <c>WEBSITE_INSTANCE_ID</c> on App Service plans, <c>CONTAINER_NAME</c> on
/// Linux Consumption and Flex Consumption (which leave the first unset); the machine name anywhere else. The same
/// choice the Functions host makes for its own instance id.
/// </param>
/// <param name="ProcessId">The process on that instance: the worker restarts under the same instance id.</param>
/// <param name="ProcessStartTime">When the process started (UTC), which tells a new process from an old one that had the same id.</param>
public sealed record InstanceStats(string Id, int ProcessId, DateTimeOffset ProcessStartTime)
{
    /// <summary>The settings that name the instance, in the order they are tried.</summary>
    public static readonly IReadOnlyList<string> PlatformInstanceIdSettings = ["WEBSITE_INSTANCE_ID", "CONTAINER_NAME"];

    /// <summary>This process, named from <paramref name="configuration"/> (where the platform's environment variables are).</summary>
    public static InstanceStats Describe(IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var id = PlatformInstanceIdSettings.Select(setting => configuration[setting]).FirstOrDefault(value => !string.IsNullOrWhiteSpace(value));
        using var process = Process.GetCurrentProcess();
        return new InstanceStats(id ?? Environment.MachineName, process.Id, process.StartTime.ToUniversalTime());
    }
}
