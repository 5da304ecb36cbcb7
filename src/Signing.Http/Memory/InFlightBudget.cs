namespace Signing.Http.Memory;

/// <summary>
/// One process-wide budget of memory held by requests in flight (setting <c>Signing:MaxInFlightBytes</c>). A request
/// is charged what it holds (<see cref="RequestMemory"/>), raised step by step as its body arrives and its work
/// proceeds; one whose next step does not fit is refused with 503 and <c>Retry-After</c> instead of being let in to
/// run the process out of memory. What a client only declares costs it nothing, so idle connections that promise large
/// bodies cannot lock the budget.
/// </summary>
/// <remarks>
/// The accounting is one count of free permits, a KiB each, taken with a compare-and-swap: a raise either takes all it
/// asks for or nothing, without a lock, a queue or an allocation. A request raises its charge at every read of its body,
/// some 1,300 times for a 22 MB body in the transport's 16 KiB blocks. The shared framework's <c>ConcurrencyLimiter</c>,
/// which this replaced, allocates a lease per acquire, and the charge kept a list of them: a <c>transcode</c> request
/// of 22 MB cost the process 105.6 KB of allocation with it and 23.5 KB without (<c>loadtest/request-allocation.sh</c>,
/// docs/load-test.md). ASP.NET Core's rate-limiting middleware does not fit either: it takes one permit per request,
/// where a budget in bytes needs the request's size, runs only in SigningServer's pipeline (the Functions worker exposes
/// its own), and sets no <c>Retry-After</c>.
/// </remarks>
public sealed class InFlightBudget
{
    /// <summary>Bytes per permit: fine enough for any request, coarse enough that 2 TiB fits in the count.</summary>
    public const int BytesPerPermit = 1024;

    private readonly int _limitPermits;
    private int _freePermits;
    private long _refused;

    /// <summary>Creates a budget of <paramref name="limitBytes"/>; <see cref="SigningOptionsValidator"/> has checked it.</summary>
    /// <exception cref="OverflowException">More than <see cref="int.MaxValue"/> permits.</exception>
    public InFlightBudget(long limitBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limitBytes, BytesPerPermit);
        _limitPermits = checked((int)(limitBytes / BytesPerPermit));
        _freePermits = _limitPermits;
        LimitBytes = (long)_limitPermits * BytesPerPermit;
    }

    /// <summary>The most that requests in flight may be charged together.</summary>
    public long LimitBytes { get; }

    /// <summary>What requests in flight are charged now: zero whenever none is.</summary>
    public long InUseBytes => (long)(_limitPermits - Volatile.Read(ref _freePermits)) * BytesPerPermit;

    /// <summary>Requests refused since the process started because they did not fit.</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>An empty charge for one request, to grow as the request learns what it will hold.</summary>
    public InFlightCharge Open() => new(this);

    /// <summary>The permits that <paramref name="bytes"/> take: whole ones, rounded up.</summary>
    internal static long PermitsFor(long bytes) => (bytes + BytesPerPermit - 1) / BytesPerPermit;

    /// <summary>Takes <paramref name="permits"/> (at least one) at once, or none, and counts a refusal then.</summary>
    internal bool TryTake(long permits)
    {
        var free = Volatile.Read(ref _freePermits);
        while (permits <= free)
        {
            var before = Interlocked.CompareExchange(ref _freePermits, free - (int)permits, free);
            if (before == free)
            {
                return true;
            }

            // Another request took or gave back permits in between: try again against what is free now.
            free = before;
        }

        Interlocked.Increment(ref _refused);
        return false;
    }

    /// <summary>Gives back <paramref name="permits"/> that <see cref="TryTake"/> took.</summary>
    internal void GiveBack(int permits) => Interlocked.Add(ref _freePermits, permits);
}
