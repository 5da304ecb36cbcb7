namespace Signing.Http.Requests;

/// <summary>
/// Measures one request's silence: the time the server has spent waiting for body bytes that did not come, and calls
/// back once it reaches <c>Signing:BodyStallTimeout</c>. It counts only while a read waits, starts again from zero
/// whenever bytes arrive, and, as Kestrel's own <c>TimeoutControl</c> does for its minimum data rate, counts a late
/// beat as one beat: a process too busy to run its timer on time is taken to be too busy to take in what the client
/// sent, and that time is the server's, not the client's.
/// </summary>
/// <remarks>
/// The beat is a <see cref="TimeProvider"/> timer whose callbacks run on the thread pool, queued behind the socket
/// completions that would deliver the bytes: when the pool is starved the beats come late and count for less, where a
/// one-shot deadline (what this clock replaced) fired on time while honest clients' bytes waited in the queue, and cut
/// 10 to 12 of 64 concurrent 32 MB uploads off with 408 after they had sent everything. A read that completes at once
/// (the bytes were already buffered, however long the server took to come back for them) never starts the clock.
/// <para>
/// A body arrives in many short waits (a 1.08 MB body under load is read some 28 times, 96% of them after a wait:
/// docs/floor-history.md, "The time beyond the floor, symbol by symbol"), so the timer is left beating from one wait to the
/// next and stopped by the first beat that finds no read waiting: moving a timer takes the timer queue's lock, and
/// doing it twice a wait cost <c>transcode</c> about 0.7% of its processor time under load (measured with 16 KiB
/// reads), while a beat a second that counts nothing costs next to none.
/// </para>
/// </remarks>
internal sealed class BodyStallClock : IDisposable
{
    /// <summary>The longest beat: Kestrel's heartbeat. Shorter timeouts beat four times within the timeout.</summary>
    public static readonly TimeSpan MaximumBeat = TimeSpan.FromSeconds(1);

    private readonly Lock _gate = new();
    private readonly TimeProvider _time;
    private readonly Action _onStall;
    private ITimer? _timer;
    private bool _beating;
    private bool _waiting;
    private long _lastBeat;
    private TimeSpan _silent;

    /// <summary>Creates a clock that calls <paramref name="onStall"/> once, after <paramref name="timeout"/> of silence.</summary>
    public BodyStallClock(TimeProvider time, TimeSpan timeout, Action onStall)
    {
        _time = time;
        Timeout = timeout;
        Beat = timeout / 4 < MaximumBeat ? timeout / 4 : MaximumBeat;
        _onStall = onStall;
    }

    /// <summary>How much silence ends the body.</summary>
    public TimeSpan Timeout { get; }

    /// <summary>How often the clock looks, and the most one look may count.</summary>
    public TimeSpan Beat { get; }

    /// <summary>Whether the silence reached <see cref="Timeout"/>; once it has, the clock stays stopped.</summary>
    public bool Stalled { get; private set; }

    /// <summary>A read is waiting for the client: count from now.</summary>
    public void Start()
    {
        lock (_gate)
        {
            _waiting = true;
            _lastBeat = _time.GetTimestamp();
            if (_timer is null)
            {
                _timer = _time.CreateTimer(static clock => ((BodyStallClock)clock!).OnBeat(), this, Beat, Beat);
            }
            else if (!_beating)
            {
                _timer.Change(Beat, Beat);
            }

            _beating = true;
        }
    }

    /// <summary>The read ended: stop counting, and start again from zero when <paramref name="arrived"/> says bytes came.</summary>
    public void Stop(bool arrived)
    {
        lock (_gate)
        {
            _waiting = false;
            if (arrived)
            {
                _silent = TimeSpan.Zero;
            }
        }
    }

    /// <inheritdoc/>
    public void Dispose()
    {
        lock (_gate)
        {
            _waiting = false;
            _timer?.Dispose();
        }
    }

    private void OnBeat()
    {
        lock (_gate)
        {
            // A beat after the read ended (or queued just before), after the stall or the clock's end counts nothing, and
            // the timer beats no more until a read waits again.
            if (!_waiting || Stalled)
            {
                StopBeating();
                return;
            }

            var now = _time.GetTimestamp();
            var sinceLast = _time.GetElapsedTime(_lastBeat, now);
            _silent += sinceLast < Beat ? sinceLast : Beat;
            _lastBeat = now;
            if (_silent < Timeout)
            {
                return;
            }

            Stalled = true;
            StopBeating();
        }

        // Outside the lock: the callback cancels the pending read, whose continuation may run inline and call Stop.
        _onStall();
    }

    // Called under the lock. Moving a disposed timer does nothing, as a beat queued before Dispose may.
    private void StopBeating()
    {
        if (_beating)
        {
            _timer!.Change(System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
            _beating = false;
        }
    }
}
