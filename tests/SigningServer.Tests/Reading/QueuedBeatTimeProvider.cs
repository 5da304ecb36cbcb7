using Microsoft.Extensions.Time.Testing;

namespace SigningServer.Tests.Reading;

/// <summary>
/// A <see cref="FakeTimeProvider"/> that counts the beats its timers deliver, and can deliver one more beat of the last
/// timer it made whatever that timer's state: the beat a thread-pool timer had already queued when it was stopped or
/// disposed, which still runs, late. It also counts the timers made and not yet disposed.
/// </summary>
internal sealed class QueuedBeatTimeProvider : FakeTimeProvider
{
    private Action? _lastBeat;

    /// <summary>Beats delivered so far, the queued one included.</summary>
    public int Beats { get; private set; }

    /// <summary>Timers made so far.</summary>
    public int TimersMade { get; private set; }

    /// <summary>Timers made and not yet disposed.</summary>
    public int LiveTimers { get; private set; }

    /// <summary>Calls to <see cref="ITimer.Change"/> on the timers made: each takes the timer queue's lock.</summary>
    public int Moves { get; private set; }

    /// <inheritdoc/>
    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        void Beat()
        {
            Beats++;
            callback(state);
        }

        _lastBeat = Beat;
        TimersMade++;
        LiveTimers++;
        return new CountedTimer(this, base.CreateTimer(_ => Beat(), null, dueTime, period));
    }

    /// <summary>Runs the beat the last timer had queued before it was stopped or disposed.</summary>
    public void RunQueuedBeat() => _lastBeat!();

    private sealed class CountedTimer(QueuedBeatTimeProvider time, ITimer inner) : ITimer
    {
        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            time.Moves++;
            return inner.Change(dueTime, period);
        }

        public void Dispose()
        {
            time.LiveTimers--;
            inner.Dispose();
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
