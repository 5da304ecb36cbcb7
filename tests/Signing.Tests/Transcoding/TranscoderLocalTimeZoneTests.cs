using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Instants with offsets in a zone that is not UTC. The object path's converter goes through the server's local time
/// on the way to UTC, so on a UTC machine (CI's) the tests above could not tell whether the transcoder does the same;
/// these switch the process's zone for a moment, so they run in the same serial collection as the writer's.
/// </summary>
[Collection(ProcessTimeZoneGroup.Name)]
public sealed class TranscoderLocalTimeZoneTests
{
    [Theory]
    [InlineData("Asia/Kathmandu")] // +05:45, no daylight saving time
    [InlineData("America/St_Johns")] // -03:30, with daylight saving time
    public void Instants_of_every_form_are_answered_alike_in_another_zone(string zone)
    {
        using var _ = ProcessTimeZone.Set(zone);
        Assert.NotEqual(TimeSpan.Zero, TimeZoneInfo.Local.BaseUtcOffset);
        BothPaths.AssertSame(ValueEquivalenceTests.InstantBodies());
    }
}
