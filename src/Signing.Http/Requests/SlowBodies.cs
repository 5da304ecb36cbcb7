namespace Signing.Http.Requests;

/// <summary>
/// The bodies being read now, by their stall clocks, so that a full in-flight budget can take back what the ones that
/// are not arriving hold. Without it a client that sends part of a body and then nothing holds what it sent until the
/// stall timeout, and 200 of them at 1 MiB each kept a 1 GiB SigningServer's 204 MiB budget full: an honest client
/// got 503 for nine requests in ten (docs/load-test.md, "The same attacks in the Functions worker"). With it, every
/// refusal cuts the bodies that have gone a beat (a second, by default) without bringing
/// <see cref="BodyStallClock.ProgressBytes"/>, and those whose clients took longer than the hold window to send what
/// they hold (<see cref="BodyStallClock.HoldWindow"/>), each with the 408 of a stall; bodies arriving at a rate that
/// pays for what they hold are never cut.
/// </summary>
/// <remarks>
/// The refused request is refused all the same (its client retries after <c>Retry-After</c>): the bodies cut give their
/// charges back only once their requests have unwound, so the room is for the next request, not this one. A look at
/// every body costs time in proportion to the connections being read, so there is one every
/// <see cref="ScanInterval"/> at most, however many requests are refused.
/// </remarks>
public sealed class SlowBodies(TimeProvider time)
{
    /// <summary>
    /// The least time between two looks: silence is counted a beat at a time, so a look sooner finds little new, and a
    /// flood of refused requests must not become a flood of scans over thousands of connections.
    /// </summary>
    public static readonly TimeSpan ScanInterval = TimeSpan.FromMilliseconds(100);

    private readonly Lock _gate = new();
    private readonly HashSet<BodyStallClock> _clocks = [];
    private long _cut;
    private long _lastScan = long.MinValue;

    /// <summary>Bodies cut for room since the process started.</summary>
    public long Cut => Interlocked.Read(ref _cut);

    /// <summary>
    /// Cuts every body silent for a beat or more, or holding more than it pays for (<see cref="BodyStallClock.TryCutForRoom"/>), unless another call
    /// looked less than <see cref="ScanInterval"/> ago; returns how many were cut.
    /// </summary>
    public int CutSilent()
    {
        var now = time.GetTimestamp();
        var last = Interlocked.Read(ref _lastScan);
        if ((last != long.MinValue && time.GetElapsedTime(last, now) < ScanInterval) ||
            Interlocked.CompareExchange(ref _lastScan, now, last) != last)
        {
            return 0;
        }

        BodyStallClock[] clocks;
        lock (_gate)
        {
            clocks = [.. _clocks];
        }

        // Outside the lock: a cut cancels a read, whose request may end inline and take its clock out of the set.
        var cut = 0;
        foreach (var clock in clocks)
        {
            if (clock.TryCutForRoom())
            {
                cut++;
            }
        }

        Interlocked.Add(ref _cut, cut);
        return cut;
    }

    /// <summary>The bodies being read now.</summary>
    internal int Count
    {
        get
        {
            lock (_gate)
            {
                return _clocks.Count;
            }
        }
    }

    /// <summary>A body's read began.</summary>
    internal void Add(BodyStallClock clock)
    {
        lock (_gate)
        {
            _clocks.Add(clock);
        }
    }

    /// <summary>A body's read ended, however it ended.</summary>
    internal void Remove(BodyStallClock clock)
    {
        lock (_gate)
        {
            _clocks.Remove(clock);
        }
    }
}
