using System.Threading.RateLimiting;

namespace Signing.Http.Memory;

/// <summary>
/// What one request is charged against the <see cref="InFlightBudget"/>. It grows as the request comes to hold memory
/// (block by block as the body arrives, then the envelope's and the strategy's multiples of it) and is given back
/// whole when the request ends, however it ends.
/// </summary>
public sealed class InFlightCharge : IDisposable
{
    private readonly InFlightBudget _budget;
    private readonly List<RateLimitLease> _leases = [];

    internal InFlightCharge(InFlightBudget budget) => _budget = budget;

    /// <summary>Bytes charged so far.</summary>
    public long Bytes { get; private set; }

    /// <summary>
    /// Raises the charge to <paramref name="bytes"/> (nothing happens when it is already that high). Returns false, and
    /// keeps what was charged before, when the budget cannot take the difference: the request must then be refused.
    /// </summary>
    public bool TryRaiseTo(long bytes)
    {
        if (bytes <= Bytes)
        {
            return true;
        }

        if (_budget.TryTake(bytes - Bytes) is not { } lease)
        {
            return false;
        }

        _leases.Add(lease);
        Bytes = bytes;
        return true;
    }

    /// <summary>Gives everything back to the budget.</summary>
    public void Dispose()
    {
        foreach (var lease in _leases)
        {
            lease.Dispose();
        }

        // Stryker disable once Statement : the leases are already given back, and disposing one twice does nothing, so
        // keeping them in the list shows only as memory.
        _leases.Clear();
        Bytes = 0;
    }
}
