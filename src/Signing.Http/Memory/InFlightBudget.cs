using System.Threading.RateLimiting;

namespace Signing.Http.Memory;

/// <summary>
/// One process-wide budget of memory held by requests in flight (setting <c>Signing:MaxInFlightBytes</c>). A request
/// is charged what it holds (<see cref="RequestMemory"/>), raised step by step as its body arrives and its work
/// proceeds; one whose next step does not fit is refused with 503 and <c>Retry-After</c> instead of being let in to
/// run the process out of memory. What a client only declares costs it nothing, so idle connections that promise large
/// bodies cannot lock the budget.
/// </summary>
/// <remarks>
/// The accounting is the shared framework's <see cref="ConcurrencyLimiter"/>, with one permit per KiB and no queue,
/// used directly rather than through ASP.NET Core's rate-limiting middleware: the middleware takes one permit per
/// request (a budget in bytes needs a request's size), runs only in SigningServer's pipeline (the Functions worker
/// exposes its own), and sets no <c>Retry-After</c>.
/// </remarks>
public sealed class InFlightBudget : IDisposable
{
    /// <summary>Bytes per permit: fine enough for any request, coarse enough that 2 TiB fits in the limiter's count.</summary>
    public const int BytesPerPermit = 1024;

    private readonly ConcurrencyLimiter _permits;
    private long _refused;

    /// <summary>Creates a budget of <paramref name="limitBytes"/>; <see cref="SigningOptionsValidator"/> has checked it.</summary>
    public InFlightBudget(long limitBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limitBytes, BytesPerPermit);
        LimitBytes = limitBytes / BytesPerPermit * BytesPerPermit;
        _permits = new ConcurrencyLimiter(new ConcurrencyLimiterOptions
        {
            PermitLimit = checked((int)(limitBytes / BytesPerPermit)),
            QueueLimit = 0,
        });
    }

    /// <summary>The most that requests in flight may be charged together.</summary>
    public long LimitBytes { get; }

    /// <summary>
    /// What requests in flight are charged now: zero whenever none is, and after <see cref="Dispose"/>. The meter
    /// provider's last export at shutdown reads this through a gauge after the host has disposed the budget; by then
    /// the server has stopped and no request holds a charge, so zero is the reading, not an exception.
    /// </summary>
    public long InUseBytes
    {
        get
        {
            try
            {
                return LimitBytes - (_permits.GetStatistics()!.CurrentAvailablePermits * BytesPerPermit);
            }
            catch (ObjectDisposedException)
            {
                return 0;
            }
        }
    }

    /// <summary>Requests refused since the process started because they did not fit.</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>An empty charge for one request, to grow as the request learns what it will hold.</summary>
    public InFlightCharge Open() => new(this);

    /// <inheritdoc/>
    public void Dispose() => _permits.Dispose();

    /// <summary>Takes <paramref name="bytes"/> more from the budget at once, or nothing; counts a refusal when it cannot.</summary>
    internal RateLimitLease? TryTake(long bytes)
    {
        var permits = (bytes + BytesPerPermit - 1) / BytesPerPermit;
        if (permits <= LimitBytes / BytesPerPermit)
        {
            var lease = _permits.AttemptAcquire((int)permits);
            if (lease.IsAcquired)
            {
                return lease;
            }

            // Stryker disable once Statement : a lease that was not acquired holds nothing; disposing it is tidiness.
            lease.Dispose();
        }

        Interlocked.Increment(ref _refused);
        return null;
    }
}
