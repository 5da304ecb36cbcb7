using Signing.Generation;

namespace Signing.Tests.Strategies;

/// <summary>
/// Local dates in a zone that is not UTC. On a UTC machine (CI's) a Local date needs no conversion, so the tests above
/// could not tell whether it is converted at all; these switch the process's zone for a moment, which is why they run
/// alone, after every parallel test.
/// </summary>
[Collection(ProcessTimeZoneGroup.Name)]
public sealed class LocalTimeZoneTests
{
    [Theory]
    [InlineData("Asia/Kathmandu")] // +05:45, no daylight saving time
    [InlineData("America/St_Johns")] // -03:30, with daylight saving time
    public void Local_dates_are_converted_to_utc_as_newtonsoft_converts_them(string zone)
    {
        using var _ = ProcessTimeZone.Set(zone);
        Assert.NotEqual(TimeSpan.Zero, TimeZoneInfo.Local.BaseUtcOffset);
        DateTime[] locals =
        [
            new(2021, 6, 15, 12, 34, 56, 789, DateTimeKind.Local),
            new(2021, 1, 15, 0, 0, 0, DateTimeKind.Local),
            // Around St. John's 2021 daylight saving changes: a time that does not exist and one that exists twice.
            new(2021, 3, 14, 2, 30, 0, DateTimeKind.Local),
            new(2021, 11, 7, 1, 30, 0, DateTimeKind.Local),
            new(DateTime.MinValue.Ticks + TimeSpan.TicksPerDay, DateTimeKind.Local),
            new(DateTime.MaxValue.Ticks - TimeSpan.TicksPerDay, DateTimeKind.Local),
        ];

        foreach (var local in locals)
        {
            Canonical.AssertSame(Envelopes.WithDate(local), $"{local:O} in {zone}");
        }

        var generated = EnvelopeGenerator.Create(200, 3, GeneratedText.Awkward);
        var asLocal = Envelopes.Of(generated.Widgets.Select(w => Envelopes.Widget(w.Property0, w.CreatedUtc.ToLocalTime())).ToArray());
        Canonical.AssertSame(asLocal, $"generated dates as Local in {zone}");
    }
}
