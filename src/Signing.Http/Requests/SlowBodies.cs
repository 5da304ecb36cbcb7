using Signing.Http.Memory;

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
/// The bodies cut give their charges back only once their requests have unwound, a few milliseconds later, so the
/// request that did not fit waits for that room (<see cref="WaitForRoomAsync"/>, at most <see cref="RoomWait"/>)
/// instead of being refused while it opens: the honest client is signed at its first try, not after a
/// <c>Retry-After</c>. When nothing was cut, nothing is coming, and the request is refused at once. A look at every
/// body costs time in proportion to the connections being read, so there is one every <see cref="ScanInterval"/> at
/// most, however many requests are refused; a request that finds a look just made waits on what it cut.
/// </remarks>
public sealed class SlowBodies(TimeProvider time)
{
    /// <summary>
    /// The least time between two looks: silence is counted a beat at a time, so a look sooner finds little new, and a
    /// flood of refused requests must not become a flood of scans over thousands of connections.
    /// </summary>
    public static readonly TimeSpan ScanInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// How long after a cut a request that did not fit may wait for the room it gives back: ample for a cut request to
    /// unwind on a busy server, and short beside the second of <c>Retry-After</c> its client would wait otherwise.
    /// </summary>
    public static readonly TimeSpan RoomWait = TimeSpan.FromMilliseconds(250);

    // How often a waiting request tries again: each try is one compare-and-swap.
    private static readonly TimeSpan RoomPoll = TimeSpan.FromMilliseconds(10);

    private readonly Lock _gate = new();
    private readonly HashSet<BodyStallClock> _clocks = [];
    private long _cut;
    private long _lastScan = long.MinValue;
    private long _lastCut = long.MinValue;

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
        if (cut > 0)
        {
            Interlocked.Exchange(ref _lastCut, now);
        }

        return cut;
    }

    /// <summary>
    /// Raises <paramref name="charge"/> to <paramref name="bytes"/>, and when the budget is full, waits for the room
    /// that cutting the bodies that are not arriving opens (<see cref="WaitForRoomAsync"/>). False: the request must be
    /// refused.
    /// </summary>
    public ValueTask<bool> TryRaiseAsync(InFlightCharge charge, long bytes, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(charge);
        return charge.TryRaiseTo(bytes) ? ValueTask.FromResult(true) : WaitForRoomAsync(charge, bytes, cancellationToken);
    }

    /// <summary>
    /// For a request whose raise to <paramref name="bytes"/> the full budget refused: cuts what it can
    /// (<see cref="CutSilent"/>) and, if this look or one less than <see cref="RoomWait"/> ago cut anything, tries the
    /// raise again every few milliseconds until the cut bodies' charges come back or that wait is over. True once
    /// the charge is raised; false, at once when nothing was cut, when the request must be refused.
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> ended the wait: the client is gone.</exception>
    public async ValueTask<bool> WaitForRoomAsync(InFlightCharge charge, long bytes, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(charge);
        CutSilent();
        var cutAt = Interlocked.Read(ref _lastCut);
        if (cutAt == long.MinValue)
        {
            return false;
        }

        while (time.GetElapsedTime(cutAt) < RoomWait)
        {
            await Task.Delay(RoomPoll, time, cancellationToken);
            if (charge.TryRaiseTo(bytes))
            {
                return true;
            }
        }

        return false;
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
