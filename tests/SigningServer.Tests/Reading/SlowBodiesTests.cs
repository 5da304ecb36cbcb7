using Microsoft.Extensions.Time.Testing;
using Signing.Http.Memory;
using Signing.Http.Requests;

namespace SigningServer.Tests.Reading;

/// <summary>
/// <see cref="SlowBodies"/> on a fake clock: a look cuts the bodies whose reads have waited a beat of silence, and no
/// other, nor one whose request has ended, which it lets go of; and it looks once in <see cref="SlowBodies.ScanInterval"/>
/// at most, however often it is asked. A request that does not fit waits for the room a cut gives back, at most
/// <see cref="SlowBodies.RoomWait"/>, and not at all when nothing was cut.
/// </summary>
public sealed class SlowBodiesTests
{
    private const int KiB = InFlightBudget.BytesPerPermit;

    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(10);

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

    [Fact]
    public async Task A_request_that_does_not_fit_waits_for_the_room_that_a_cut_gives_back()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        var budget = new InFlightBudget(4 * KiB);
        var held = budget.Open();
        Assert.True(held.TryRaiseTo(4 * KiB));
        using var silent = new BodyStallClock(time, Timeout, () => { }, bodies);
        silent.Start();
        time.BeatOnTime(silent, 1);
        using var waiting = budget.Open();

        var admitted = bodies.TryRaiseAsync(waiting, 2 * KiB, CancellationToken.None).AsTask();

        // The look cut the silent body; its request has not unwound yet, so the waiter finds no room at its first try.
        Assert.True(silent.CutForRoom);
        time.Advance(Poll);
        await AssertStillWaitingAsync(admitted);

        held.Dispose();
        time.Advance(Poll);
        Assert.True(await admitted.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(2 * KiB, waiting.Bytes);
        Assert.Equal(0, budget.Refused);
    }

    [Fact]
    public async Task A_request_that_does_not_fit_when_nothing_is_cut_is_refused_at_once()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        var budget = new InFlightBudget(4 * KiB);
        using var held = budget.Open();
        Assert.True(held.TryRaiseTo(4 * KiB));
        using var arriving = new BodyStallClock(time, Timeout, () => { }, bodies);
        arriving.Start();
        using var waiting = budget.Open();

        var admitted = bodies.TryRaiseAsync(waiting, KiB, CancellationToken.None);

        Assert.True(admitted.IsCompleted);
        Assert.False(await admitted);
        Assert.Equal(0, waiting.Bytes);
    }

    [Fact]
    public async Task A_request_waits_no_longer_than_the_room_wait_when_the_room_does_not_come()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        var budget = new InFlightBudget(4 * KiB);
        using var held = budget.Open();
        Assert.True(held.TryRaiseTo(4 * KiB));
        using var silent = new BodyStallClock(time, Timeout, () => { }, bodies);
        silent.Start();
        time.BeatOnTime(silent, 1);
        using var waiting = budget.Open();

        var admitted = bodies.TryRaiseAsync(waiting, KiB, CancellationToken.None).AsTask();
        for (var waited = TimeSpan.Zero; waited < SlowBodies.RoomWait - Poll; waited += Poll)
        {
            time.Advance(Poll);
            await AssertStillWaitingAsync(admitted);
        }

        time.Advance(Poll);
        Assert.False(await admitted.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(0, waiting.Bytes);
    }

    [Fact]
    public async Task A_request_refused_just_after_another_look_waits_on_what_that_look_cut()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        var budget = new InFlightBudget(4 * KiB);
        var held = budget.Open();
        Assert.True(held.TryRaiseTo(4 * KiB));
        using var silent = new BodyStallClock(time, Timeout, () => { }, bodies);
        silent.Start();
        time.BeatOnTime(silent, 1);
        Assert.Equal(1, bodies.CutSilent());
        time.Advance(Poll);
        using var waiting = budget.Open();

        // Within the scan interval the look is not made again, but the room it opened is still coming.
        var admitted = bodies.TryRaiseAsync(waiting, KiB, CancellationToken.None).AsTask();
        held.Dispose();
        time.Advance(Poll);

        Assert.True(await admitted.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task A_client_that_goes_away_while_its_request_waits_for_room_ends_the_wait()
    {
        var time = new FakeTimeProvider();
        var bodies = new SlowBodies(time);
        var budget = new InFlightBudget(4 * KiB);
        using var held = budget.Open();
        Assert.True(held.TryRaiseTo(4 * KiB));
        using var silent = new BodyStallClock(time, Timeout, () => { }, bodies);
        silent.Start();
        time.BeatOnTime(silent, 1);
        using var waiting = budget.Open();
        using var gone = new CancellationTokenSource();

        var admitted = bodies.TryRaiseAsync(waiting, KiB, gone.Token).AsTask();
        await gone.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => admitted.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(0, waiting.Bytes);
    }

    // The fake clock's timers run their callbacks on the thread that advances it, but the wait goes on after an await:
    // give it a moment to try again before saying that it has not finished.
    private static async Task AssertStillWaitingAsync(Task<bool> admitted)
    {
        await Task.Delay(50);
        Assert.False(admitted.IsCompleted, "the request stopped waiting");
    }
}
