using Signing.Http.Memory;

namespace Signing.Http.Requests;

/// <summary>
/// Measures one request's silence: the time the server has spent waiting for body bytes that did not come, and calls
/// back once it reaches <c>Signing:BodyStallTimeout</c>. It counts only while a read waits, starts again from zero
/// whenever <see cref="ProgressBytes"/> more have arrived, and, as Kestrel's own <c>TimeoutControl</c> does for its
/// minimum data rate, counts a late beat as one beat: a process too busy to run its timer on time is taken to be too
/// busy to take in what the client sent, and that time is the server's, not the client's. When the in-flight budget is
/// full, a body silent for a beat or more can be cut at once (<see cref="TryCutForRoom"/>, through
/// <see cref="SlowBodies"/>), and so can one whose client, at the rate it has sent while the server waited, took more
/// than <see cref="HoldWindow"/> to send what the request holds.
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

    /// <summary>
    /// What a body must bring for its silence to start again: 16 KiB, a second at the slowest rate SigningServer's
    /// Kestrel allows (<see cref="SigningKestrelLimits.MinRequestBodyBytesPerSecond"/>). Were any byte enough, a client
    /// that sent a megabyte and then one byte a second would hold that megabyte for as long as Kestrel's average rate
    /// allowed it, 64 s, and could never be told from one still sending.
    /// </summary>
    public const int ProgressBytes = 16 * 1024;

    private readonly Lock _gate = new();
    private readonly TimeProvider _time;
    private readonly Action _onStall;
    private readonly SlowBodies? _bodies;
    private readonly InFlightCharge? _charge;
    private ITimer? _timer;
    private bool _beating;
    private bool _waiting;
    private long _lastBeat;
    private TimeSpan _silent;
    private TimeSpan _waited;
    private long _wire;
    private long _arrived;
    private long _decompressed;
    private bool _compressed;

    /// <summary>
    /// Creates a clock that calls <paramref name="onStall"/> once, after <paramref name="timeout"/> of silence, and
    /// belongs to <paramref name="bodies"/> until it is disposed, for a full budget to cut, weighing what the request
    /// holds (<paramref name="charge"/>) against how fast its client sends.
    /// </summary>
    public BodyStallClock(TimeProvider time, TimeSpan timeout, Action onStall, SlowBodies? bodies = null, InFlightCharge? charge = null)
    {
        _time = time;
        Timeout = timeout;
        Beat = timeout / 4 < MaximumBeat ? timeout / 4 : MaximumBeat;
        _onStall = onStall;
        _bodies = bodies;
        _charge = charge;
        bodies?.Add(this);
    }

    /// <summary>How much silence ends the body.</summary>
    public TimeSpan Timeout { get; }

    /// <summary>How often the clock looks, and the most one look may count.</summary>
    public TimeSpan Beat { get; }

    /// <summary>
    /// Twice <see cref="Timeout"/>: while the budget is full, the longest a request may take to be sent what it holds,
    /// at the rate its client has sent while the server waited. Holding memory costs a client bandwidth in proportion:
    /// keeping a 204 MiB budget full takes some 20 MiB/s at the default 5 s, where a client that sent 16 KiB a second
    /// (enough never to be silent) held up to 32 MiB for minutes; an honest upload that slow is cut only while the
    /// budget is full, with a 408 it can retry.
    /// </summary>
    public TimeSpan HoldWindow => Timeout * 2;

    /// <summary>Whether the silence reached <see cref="Timeout"/>, or the body was cut for room; once so, the clock stays stopped.</summary>
    public bool Stalled { get; private set; }

    /// <summary>Whether the body was cut to make room in a full budget (<see cref="TryCutForRoom"/>), not at the timeout.</summary>
    public bool CutForRoom { get; private set; }

    /// <summary>Whether it was cut for room because it was arriving too slowly for what it holds, not because it was silent.</summary>
    public bool CutForHolding { get; private set; }

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

    /// <summary>The read ended: count the wait since the last beat, as a beat would, and stop counting.</summary>
    public void Stop()
    {
        lock (_gate)
        {
            // Without this a body that sent a byte every half beat would never be silent for long: each wait would end
            // before a beat counted it.
            if (_waiting)
            {
                var waited = _time.GetElapsedTime(_lastBeat);
                var counted = waited < Beat ? waited : Beat;
                _silent += counted;
                _waited += counted;
            }

            _waiting = false;
        }
    }

    /// <summary>
    /// The body is compressed: from now on it progresses only when both what arrives on the wire and what that
    /// decompresses to (<see cref="Decompressed"/>) have added up to <see cref="ProgressBytes"/>. Either alone can be
    /// had for nothing: empty deflate blocks arrive and decompress to nothing, and a 100-byte block decompresses to
    /// 16 KiB of spaces, which would keep a body alive at 200 bytes a second.
    /// </summary>
    public void ExpectDecompressed()
    {
        lock (_gate)
        {
            _compressed = true;
        }
    }

    /// <summary>
    /// <paramref name="bytes"/> more of the body came on the wire, by any read, waited for or not: the silence starts
    /// again from zero once they add up to <see cref="ProgressBytes"/> (and, for a compressed body, so does what they
    /// decompressed to).
    /// </summary>
    public void Arrived(long bytes)
    {
        lock (_gate)
        {
            _arrived += bytes;
            _wire += bytes;
            RestartIfProgressed();
        }
    }

    /// <summary><paramref name="bytes"/> more of a compressed body came out of its decompressor: see <see cref="ExpectDecompressed"/>.</summary>
    public void Decompressed(long bytes)
    {
        lock (_gate)
        {
            _decompressed += bytes;
            RestartIfProgressed();
        }
    }

    /// <summary>
    /// Ends the body now, as the timeout would, if a read is waiting and either a beat or more of silence has been
    /// counted, or the request holds more than its client sent in <see cref="HoldWindow"/> at the rate it has sent
    /// while the server waited (after a beat of waiting): when the budget is full, what such a body holds is better
    /// given to one that is arriving. Only counted waits, so a server too starved to run its beats or to read is no
    /// quicker to cut. Returns whether it was cut.
    /// </summary>
    public bool TryCutForRoom()
    {
        lock (_gate)
        {
            if (!_waiting || Stalled)
            {
                return false;
            }

            if (_silent < Beat)
            {
                // Both sides in doubles: a charge of terabytes times a wait in ticks would overflow a long.
                var held = (double)(_charge?.Bytes ?? 0);
                if (_waited < Beat || held * _waited.TotalSeconds <= _wire * HoldWindow.TotalSeconds)
                {
                    return false;
                }

                CutForHolding = true;
            }

            Stalled = true;
            CutForRoom = true;
            StopBeating();
        }

        _onStall();
        return true;
    }

    /// <inheritdoc/>
    public void Dispose()
    {
        lock (_gate)
        {
            _waiting = false;
            _timer?.Dispose();
        }

        _bodies?.Remove(this);
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
            var counted = sinceLast < Beat ? sinceLast : Beat;
            _silent += counted;
            _waited += counted;
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

    // Called under the lock.
    private void RestartIfProgressed()
    {
        if (_arrived >= ProgressBytes && (!_compressed || _decompressed >= ProgressBytes))
        {
            _arrived = 0;
            _decompressed = 0;
            _silent = TimeSpan.Zero;
        }
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
