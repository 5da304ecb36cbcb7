using Microsoft.Extensions.Time.Testing;
using Signing.Http.Memory;
using Signing.Http.Requests;

namespace SigningServer.Tests.Reading;

/// <summary>
/// <see cref="BodyStallClock"/> on a fake clock: beats on time end a silence at the timeout, once; a late beat (a
/// process too starved to run its timer), or the beats it owes run back to back, count as one beat, as Kestrel's
/// heartbeat does; 16 KiB that arrive start the silence again, fewer do not; time spent not waiting is not counted, and a
/// beat queued before the read ended or the clock was disposed counts nothing; the clock beats only while a read waits.
/// Cut for room, it ends a body that a read waits for and that has been silent for a beat, or that holds more than its
/// client sent in the hold window at the rate it sent while reads waited, and no other.
/// </summary>
public sealed class BodyStallClockTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    [Fact]
    public void Beats_on_time_end_the_silence_at_the_timeout_once()
    {
        var time = new FakeTimeProvider();
        var stalls = 0;
        using var clock = new BodyStallClock(time, Timeout, () => stalls++);
        Assert.Equal(Timeout / 4, clock.Beat);

        clock.Start();
        time.BeatOnTime(clock, 3);
        Assert.False(clock.Stalled);
        time.BeatOnTime(clock, 1);

        Assert.True(clock.Stalled);
        Assert.Equal(1, stalls);
        time.BeatOnTime(clock, 12);
        Assert.Equal(1, stalls);
    }

    [Fact]
    public void A_long_timeout_beats_at_most_every_second()
    {
        using var clock = new BodyStallClock(new FakeTimeProvider(), TimeSpan.FromSeconds(5), () => { });

        Assert.Equal(TimeSpan.FromSeconds(1), clock.Beat);
    }

    [Fact]
    public void A_beat_that_comes_late_counts_as_one_beat()
    {
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });
        clock.Start();

        // The process was starved for ten timeouts: the first beat runs that late.
        time.AdjustTime(time.GetUtcNow() + (Timeout * 10));
        time.BeatOnTime(clock, 1);
        Assert.False(clock.Stalled);

        // From there the silence counts on time again.
        time.BeatOnTime(clock, 2);
        Assert.False(clock.Stalled);
        time.BeatOnTime(clock, 1);
        Assert.True(clock.Stalled);
    }

    [Fact]
    public void Sixteen_KiB_that_arrive_start_the_silence_again_and_time_between_reads_is_not_counted()
    {
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });

        clock.Start();
        time.BeatOnTime(clock, 3);
        clock.Stop();
        clock.Arrived(BodyStallClock.ProgressBytes);
        time.Advance(Timeout * 10);
        clock.Start();
        time.BeatOnTime(clock, 3);

        Assert.False(clock.Stalled);
    }

    [Fact]
    public void Fewer_bytes_keep_the_silence_counted_so_far_until_they_add_up_to_16_KiB()
    {
        // A client that sent a megabyte and then a byte a second must not be taken for one still sending.
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });

        clock.Start();
        time.BeatOnTime(clock, 3);
        clock.Stop();
        clock.Arrived(BodyStallClock.ProgressBytes - 1);
        clock.Start();
        time.BeatOnTime(clock, 1);
        Assert.True(clock.Stalled);
        Assert.False(clock.CutForRoom);

        using var other = new BodyStallClock(time, Timeout, () => { });
        other.Start();
        time.BeatOnTime(other, 3);
        other.Stop();
        other.Arrived(BodyStallClock.ProgressBytes - 1);
        other.Arrived(1);
        other.Start();
        time.BeatOnTime(other, 3);
        Assert.False(other.Stalled);
    }

    [Fact]
    public void Waits_too_short_for_a_beat_add_up()
    {
        // A byte every half beat: no beat ever finds the read still waiting from its start, yet the body is silent.
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });
        for (var i = 0; i < 7; i++)
        {
            clock.Start();
            time.Advance(clock.Beat / 2);
            clock.Stop();
            clock.Arrived(1);
        }

        clock.Start();
        time.Advance(clock.Beat / 2);

        Assert.True(clock.Stalled);
    }

    [Fact]
    public void Cut_for_room_ends_a_waiting_body_silent_for_a_beat_once()
    {
        var time = new FakeTimeProvider();
        var stalls = 0;
        using var clock = new BodyStallClock(time, Timeout, () => stalls++);

        clock.Start();
        time.Advance(clock.Beat - TimeSpan.FromMilliseconds(1));
        Assert.False(clock.TryCutForRoom());
        time.Advance(TimeSpan.FromMilliseconds(1));

        Assert.True(clock.TryCutForRoom());
        Assert.True(clock.Stalled);
        Assert.True(clock.CutForRoom);
        Assert.Equal(1, stalls);
        Assert.False(clock.TryCutForRoom());
        time.BeatOnTime(clock, 8);
        Assert.Equal(1, stalls);
    }

    [Fact]
    public void A_body_cut_for_room_beats_no_more()
    {
        // A timer left beating after the cut is a thread-pool callback a second for a request that is over.
        var time = new QueuedBeatTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });
        clock.Start();
        time.BeatOnTime(clock, 1);

        Assert.True(clock.TryCutForRoom());
        time.BeatOnTime(clock, 8);

        Assert.Equal(1, time.Beats);
    }

    [Fact]
    public void Cut_for_room_spares_a_body_no_read_waits_for_and_one_that_is_arriving()
    {
        var time = new FakeTimeProvider();
        var stalls = 0;
        using var clock = new BodyStallClock(time, Timeout, () => stalls++);

        // Silent for two beats, but no read waits: the server is working on what came, not waiting for the client.
        clock.Start();
        time.BeatOnTime(clock, 2);
        clock.Stop();
        Assert.False(clock.TryCutForRoom());

        // 16 KiB came: a new read that has waited less than a beat is a body arriving.
        clock.Arrived(BodyStallClock.ProgressBytes);
        clock.Start();
        time.Advance(clock.Beat / 2);
        Assert.False(clock.TryCutForRoom());

        // Never started at all: a read answered from what was buffered.
        using var buffered = new BodyStallClock(time, Timeout, () => stalls++);
        Assert.False(buffered.TryCutForRoom());
        Assert.Equal(0, stalls);
        Assert.False(clock.Stalled);
    }

    [Fact]
    public void Cut_for_room_ends_a_body_that_holds_more_than_its_client_sent_in_the_hold_window_at_its_rate()
    {
        // A client that keeps 16 KiB coming is never silent, but may hold far more than it sends in the window.
        var time = new FakeTimeProvider();
        using var charge = new InFlightBudget(64L * 1024 * 1024).Open();
        Assert.True(charge.TryRaiseTo(4L * 1024 * 1024));
        var stalls = 0;
        using var clock = new BodyStallClock(time, Timeout, () => stalls++, bodies: null, charge);
        clock.Arrived(4L * 1024 * 1024 - BodyStallClock.ProgressBytes);

        // Less than a beat of waiting: never, whatever it holds (4 MiB held in a quarter beat for 16 KiB sent since
        // would be over the window's rate, were it counted).
        using var early = new BodyStallClock(time, Timeout, () => stalls++, bodies: null, charge);
        early.Start();
        time.Advance(clock.Beat / 4);
        early.Arrived(BodyStallClock.ProgressBytes);
        early.Stop();
        early.Start();
        Assert.False(early.TryCutForRoom());
        early.Stop();

        clock.Start();
        time.Advance(clock.Beat / 2);
        clock.Arrived(BodyStallClock.ProgressBytes);
        time.Advance(clock.Beat / 2);
        clock.Arrived(BodyStallClock.ProgressBytes);

        // A beat of waiting for 4 MiB sent: at that rate it sends far more than it holds in the window (4 s).
        Assert.False(clock.TryCutForRoom());

        // Five more beats of 16 KiB a half beat: 4.4 MB in 3 s of waiting, 5.8 MB in the window against 4 MiB held.
        for (var half = 0; half < 10; half++)
        {
            time.Advance(clock.Beat / 2);
            clock.Arrived(BodyStallClock.ProgressBytes);
        }

        Assert.False(clock.TryCutForRoom());

        // The client falls to 16 KiB a beat (32 KiB/s): by 16 s of waiting it sent 4.8 MB, so 1.2 MB in the window
        // against the 4 MiB held.
        for (var beat = 0; beat < 26; beat++)
        {
            time.Advance(clock.Beat);
            clock.Arrived(BodyStallClock.ProgressBytes);
        }

        Assert.True(clock.TryCutForRoom());
        Assert.True(clock.CutForRoom);
        Assert.True(clock.CutForHolding);
        Assert.Equal(1, stalls);
    }

    [Fact]
    public void The_hold_rule_spares_a_body_sent_fast_and_counts_only_waits()
    {
        var time = new FakeTimeProvider();
        using var charge = new InFlightBudget(64L * 1024 * 1024).Open();
        Assert.True(charge.TryRaiseTo(32L * 1024 * 1024));
        using var clock = new BodyStallClock(time, Timeout, () => { }, bodies: null, charge);

        // 32 MiB in a beat of waiting, then the server works for a minute with no read waiting: not the client's time.
        clock.Start();
        for (var half = 0; half < 2; half++)
        {
            time.Advance(clock.Beat / 2);
            clock.Arrived(16L * 1024 * 1024);
        }

        clock.Stop();
        time.Advance(TimeSpan.FromMinutes(1));
        clock.Start();
        time.Advance(clock.Beat / 2);
        clock.Arrived(BodyStallClock.ProgressBytes);

        Assert.False(clock.TryCutForRoom());
        Assert.False(clock.CutForHolding);
    }

    [Fact]
    public void A_read_that_ends_without_bytes_keeps_the_silence_counted_so_far()
    {
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });

        clock.Start();
        time.BeatOnTime(clock, 3);
        clock.Stop();
        clock.Start();
        time.BeatOnTime(clock, 1);

        Assert.True(clock.Stalled);
    }

    [Fact]
    public void Beats_owed_after_a_starved_spell_run_back_to_back_and_count_as_one_beat()
    {
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });
        clock.Start();

        // A whole timeout passes before the process runs its timer again; the four beats it owes then run at once, and
        // that spell was the server's, not the client's.
        time.Advance(Timeout);

        Assert.False(clock.Stalled);
    }

    [Fact]
    public void A_beat_queued_before_the_read_ended_counts_nothing()
    {
        var time = new QueuedBeatTimeProvider();
        var stalls = 0;
        using var clock = new BodyStallClock(time, Timeout, () => stalls++);
        clock.Start();
        time.BeatOnTime(clock, 3);

        // The fourth beat falls due and is queued, but the read ends first (without bytes, so the silence is kept): the
        // beat, run late, must not cut off a request that is no longer waiting for its client.
        time.AdjustTime(time.GetUtcNow() + clock.Beat);
        clock.Stop();
        time.RunQueuedBeat();

        Assert.False(clock.Stalled);
        Assert.Equal(0, stalls);
    }

    [Fact]
    public void A_beat_queued_before_the_clock_was_disposed_counts_nothing()
    {
        var time = new QueuedBeatTimeProvider();
        var stalls = 0;
        var clock = new BodyStallClock(time, Timeout, () => stalls++);
        clock.Start();
        time.BeatOnTime(clock, 3);

        // The request ended (its read stopped, its clock disposed) with a beat queued: no stall for a request that is gone.
        time.AdjustTime(time.GetUtcNow() + clock.Beat);
        clock.Stop();
        clock.Dispose();
        time.RunQueuedBeat();

        Assert.False(clock.Stalled);
        Assert.Equal(0, stalls);
    }

    [Fact]
    public void The_clock_stops_beating_at_the_first_beat_that_finds_no_read_waiting()
    {
        // Each beat is a thread-pool callback for a request in flight: a clock that times no read costs one beat at most.
        var time = new QueuedBeatTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });
        clock.Start();
        time.BeatOnTime(clock, 2);
        clock.Stop();
        clock.Arrived(BodyStallClock.ProgressBytes);
        time.BeatOnTime(clock, 8);
        Assert.Equal(3, time.Beats);

        // Started again, it beats again, and no more once the body has stalled: the request is over.
        clock.Start();
        time.BeatOnTime(clock, 4);
        Assert.True(clock.Stalled);
        time.BeatOnTime(clock, 8);
        Assert.Equal(7, time.Beats);
    }

    [Fact]
    public void Reads_that_wait_one_after_another_do_not_move_the_timer()
    {
        // A body arrives in many short waits; moving the timer at each takes the timer queue's lock.
        var time = new QueuedBeatTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });
        for (var read = 0; read < 100; read++)
        {
            clock.Start();
            time.Advance(TimeSpan.FromMilliseconds(1));
            clock.Stop();
            clock.Arrived(BodyStallClock.ProgressBytes);
        }

        Assert.Equal(0, time.Moves);
        Assert.False(clock.Stalled);
    }

    [Fact]
    public void A_clock_disposed_while_a_read_waits_beats_no_more()
    {
        var time = new QueuedBeatTimeProvider();
        var clock = new BodyStallClock(time, Timeout, () => { });
        clock.Start();
        time.BeatOnTime(clock, 1);

        // A timer left beating would keep the clock, and its request's reader, alive as long as the process.
        clock.Dispose();
        time.BeatOnTime(clock, 8);

        Assert.Equal(1, time.Beats);
    }
}
