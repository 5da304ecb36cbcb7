using Microsoft.Extensions.Time.Testing;
using Signing.Http.Requests;

namespace SigningServer.Tests.Reading;

/// <summary>Beats of a <see cref="BodyStallClock"/> on a fake clock, on time.</summary>
internal static class StallBeats
{
    /// <summary>
    /// Moves <paramref name="time"/> on by <paramref name="beats"/> of <paramref name="clock"/>'s beats, one at a time:
    /// the fake clock runs every beat due within one Advance at its end, which the stall clock takes as one late beat.
    /// </summary>
    public static void BeatOnTime(this FakeTimeProvider time, BodyStallClock clock, int beats)
    {
        for (var i = 0; i < beats; i++)
        {
            time.Advance(clock.Beat);
        }
    }
}
