using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Signing.Http.Memory;

/// <summary>
/// The in-flight budget as a health check: healthy while it has room, degraded once it is nearly full (requests that
/// arrive now may be refused with 503), never unhealthy, since a full budget is the server protecting itself, not failing.
/// </summary>
public sealed class InFlightBudgetHealthCheck(InFlightBudget budget) : IHealthCheck
{
    /// <summary>The share of the budget in use past which the check reports <see cref="HealthStatus.Degraded"/>.</summary>
    public const double DegradedShare = 0.9;

    /// <summary>The name the check is registered under.</summary>
    public const string Name = "in_flight_budget";

    /// <inheritdoc/>
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var inUse = budget.InUseBytes;
        var data = new Dictionary<string, object>
        {
            ["inUseBytes"] = inUse,
            ["limitBytes"] = budget.LimitBytes,
            ["refused"] = budget.Refused,
        };
        var result = inUse >= budget.LimitBytes * DegradedShare
            ? HealthCheckResult.Degraded("The in-flight memory budget is nearly full; new requests may be refused with 503.", data: data)
            : HealthCheckResult.Healthy("The in-flight memory budget has room.", data);
        return Task.FromResult(result);
    }
}
