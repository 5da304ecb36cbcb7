namespace Signing.Http.Memory;

/// <summary>
/// What one request is charged against the <see cref="InFlightBudget"/>. It grows as the request comes to hold memory
/// (block by block as the body arrives, then the envelope's and the strategy's multiples of it) and is given back
/// whole when the request ends, however it ends.
/// </summary>
public sealed class InFlightCharge : IDisposable
{
    private readonly InFlightBudget _budget;
    private long _bytes;

    internal InFlightCharge(InFlightBudget budget) => _budget = budget;

    /// <summary>
    /// Bytes charged so far. Written by the request, read by a full budget's look at every body
    /// (<see cref="Requests.BodyStallClock.TryCutForRoom"/>) from another thread, so never torn.
    /// </summary>
    public long Bytes
    {
        get => Volatile.Read(ref _bytes);
        private set => Volatile.Write(ref _bytes, value);
    }

    /// <summary>
    /// Raises the charge to <paramref name="bytes"/> (nothing happens when it is already that high). Returns false, and
    /// keeps what was charged before, when the budget cannot take the difference: the request must then be refused.
    /// </summary>
    public bool TryRaiseTo(long bytes)
    {
        // Stryker disable once Equality : raising to the bytes already charged takes no permits below either.
        if (bytes <= Bytes)
        {
            return true;
        }

        // The charge holds the whole permits its bytes take, so raises in steps that are not whole KiB add up to no
        // more than one raise to the same bytes would. A raise within the permits held takes none.
        var more = InFlightBudget.PermitsFor(bytes) - InFlightBudget.PermitsFor(Bytes);

        // Stryker disable once Equality : taking no permits always succeeds, so asking for none changes nothing.
        if (more > 0 && !_budget.TryTake(more))
        {
            return false;
        }

        Bytes = bytes;
        return true;
    }

    /// <summary>Gives everything back to the budget; once given back, nothing more is, however often it is called.</summary>
    public void Dispose()
    {
        // Bytes were only ever set to what the budget granted, so their permits fit its count.
        _budget.GiveBack((int)InFlightBudget.PermitsFor(Bytes));
        Bytes = 0;
    }
}
