using Microsoft.Extensions.Time.Testing;
using Signing.Http.Requests;

namespace SigningServer.Tests.Reading;

/// <summary>
/// <see cref="SlowBodies"/> on a fake clock: a look cuts the bodies whose reads have waited a beat of silence, and no
/// other, nor one whose request has ended, which it lets go of; and it looks once in <see cref="SlowBodies.ScanInterval"/>
/// at most, however often it is asked.
/// </summary>
public sealed class SlowBodiesTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    [Fact]
    public void A_look_cuts_the_silent_bodies_only()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        var stalls = new List<string>();
        using var silent = new BodyStallClock(time, Timeout, () => stalls.Add("silent"), bodies);
        using var arriving = new BodyStallClock(time, Timeout, () => stalls.Add("arriving"), bodies);
        using var working = new BodyStallClock(time, Timeout, () => stalls.Add("working"), bodies);
        var ended = new BodyStallClock(time, Timeout, () => stalls.Add("ended"), bodies);

        silent.Start();
        working.Start();
        ended.Start();
        time.BeatOnTime(silent, 1);
        working.Stop();
        ended.Dispose();
        arriving.Start();

        Assert.Equal(1, bodies.CutSilent());
        Assert.Equal(["silent"], stalls);
        Assert.True(silent.CutForRoom);
        Assert.Equal(1, bodies.Cut);

        // A request that has ended is no longer held, cut or not.
        Assert.Equal(3, bodies.Count);
        silent.Dispose();
        Assert.Equal(2, bodies.Count);
    }

    [Fact]
    public void It_looks_once_an_interval_at_most()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        using var first = new BodyStallClock(time, Timeout, () => { }, bodies);
        using var second = new BodyStallClock(time, Timeout, () => { }, bodies);
        first.Start();
        second.Start();
        time.BeatOnTime(first, 1);

        // The second's read ended a moment before the look, so only the first is cut; its next read waits at once,
        // with a beat of silence already counted.
        second.Stop();
        Assert.Equal(1, bodies.CutSilent());
        second.Start();

        Assert.Equal(0, bodies.CutSilent());
        time.Advance(SlowBodies.ScanInterval - TimeSpan.FromTicks(1));
        Assert.Equal(0, bodies.CutSilent());
        time.Advance(TimeSpan.FromTicks(1));
        Assert.Equal(1, bodies.CutSilent());
        Assert.Equal(2, bodies.Cut);
    }
}
