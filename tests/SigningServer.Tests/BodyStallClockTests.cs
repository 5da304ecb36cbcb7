using Microsoft.Extensions.Time.Testing;
using Signing.Http.Requests;

namespace SigningServer.Tests;

/// <summary>
/// <see cref="BodyStallClock"/> on a fake clock: beats on time end a silence at the timeout, once; a late beat (a
/// process too starved to run its timer) counts as one beat, as Kestrel's heartbeat does; bytes that arrive start the
/// silence again; time spent not waiting is not counted.
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
        Beat(time, clock, 3);
        Assert.False(clock.Stalled);
        Beat(time, clock, 1);

        Assert.True(clock.Stalled);
        Assert.Equal(1, stalls);
        Beat(time, clock, 12);
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
        Beat(time, clock, 1);
        Assert.False(clock.Stalled);

        // From there the silence counts on time again.
        Beat(time, clock, 2);
        Assert.False(clock.Stalled);
        Beat(time, clock, 1);
        Assert.True(clock.Stalled);
    }

    [Fact]
    public void Bytes_that_arrive_start_the_silence_again_and_time_between_reads_is_not_counted()
    {
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });

        clock.Start();
        Beat(time, clock, 3);
        clock.Stop(arrived: true);
        time.Advance(Timeout * 10);
        clock.Start();
        Beat(time, clock, 3);

        Assert.False(clock.Stalled);
    }

    [Fact]
    public void A_read_that_ends_without_bytes_keeps_the_silence_counted_so_far()
    {
        var time = new FakeTimeProvider();
        using var clock = new BodyStallClock(time, Timeout, () => { });

        clock.Start();
        Beat(time, clock, 3);
        clock.Stop(arrived: false);
        clock.Start();
        Beat(time, clock, 1);

        Assert.True(clock.Stalled);
    }

    // The fake clock runs every beat due within one Advance at its end, which is a late beat; on time is one at a time.
    private static void Beat(FakeTimeProvider time, BodyStallClock clock, int beats)
    {
        for (var i = 0; i < beats; i++)
        {
            time.Advance(clock.Beat);
        }
    }
}
