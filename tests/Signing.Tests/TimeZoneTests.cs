using System.Text;
using Signing;

namespace Signing.Tests;

/// <summary>
/// The signed bytes never depend on the server's time zone: offsets are converted to UTC, zone-less input is taken as
/// UTC, and instants that are ambiguous or invalid in local time survive exactly. Each test first proves the zone
/// really changed, so it cannot pass merely because the machine runs in UTC.
/// </summary>
[Collection(ProcessTimeZoneGroup.Name)]
public sealed class TimeZoneTests
{
    public static TheoryData<string> NonUtcZones() => ["Pacific/Chatham", "America/St_Johns", "America/New_York"];

    [Theory]
    [MemberData(nameof(NonUtcZones))]
    public void Offset_input_is_signed_as_its_UTC_instant(string zone)
    {
        using var _ = ProcessTimeZone.Set(zone);
        AssertLocalZoneIs(zone);

        var offset = TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson("\"2024-03-10T12:34:56.789+02:00\"")));
        var utc = TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson("\"2024-03-10T10:34:56.789Z\"")));

        Assert.Contains("\"createdUtc\":\"2024-03-10T10:34:56.789Z\"", Canonical(offset), StringComparison.Ordinal);
        AssertSameSignatures(utc, offset);
    }

    [Theory]
    [MemberData(nameof(NonUtcZones))]
    public void Zone_less_input_is_taken_as_UTC(string zone)
    {
        using var _ = ProcessTimeZone.Set(zone);
        AssertLocalZoneIs(zone);

        var zoneless = TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson("\"2024-03-10T10:34:56.789\"")));
        var utc = TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson("\"2024-03-10T10:34:56.789Z\"")));

        Assert.Equal(DateTimeKind.Utc, zoneless.Widgets[0].CreatedUtc.Kind);
        Assert.Contains("\"createdUtc\":\"2024-03-10T10:34:56.789Z\"", Canonical(zoneless), StringComparison.Ordinal);
        AssertSameSignatures(utc, zoneless);
    }

    [Theory]
    [MemberData(nameof(NonUtcZones))]
    public void Signature_does_not_depend_on_the_process_zone(string zone)
    {
        const string Body = "\"2024-03-10T12:34:56.789+02:00\"";
        Dictionary<string, SignResult> inUtc;
        using (ProcessTimeZone.Set("Etc/UTC"))
        {
            AssertLocalZoneIs("Etc/UTC");
            inUtc = SignAll(TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson(Body))));
        }

        using var _ = ProcessTimeZone.Set(zone);
        AssertLocalZoneIs(zone);

        Assert.Equal(inUtc, SignAll(TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson(Body)))));
    }

    // 2024-11-03 in New York: clocks go from 01:59:59 EDT (-04:00) back to 01:00 EST (-05:00), so 01:30 local happens
    // twice, at 05:30Z and at 06:30Z. A round trip through local time that lost the DST flag would merge them.
    [Theory]
    [InlineData("\"2024-11-03T01:30:00.25-04:00\"", "2024-11-03T05:30:00.25Z")]
    [InlineData("\"2024-11-03T01:30:00.25-05:00\"", "2024-11-03T06:30:00.25Z")]
    [InlineData("\"2024-11-03T05:30:00.25Z\"", "2024-11-03T05:30:00.25Z")]
    [InlineData("\"2024-11-03T06:30:00.25Z\"", "2024-11-03T06:30:00.25Z")]
    [InlineData("\"2024-11-03T01:30:00.25\"", "2024-11-03T01:30:00.25Z")]
    public void Instant_ambiguous_in_local_time_survives_exactly(string input, string expected)
    {
        using var _ = ProcessTimeZone.Set("America/New_York");
        AssertLocalZoneIs("America/New_York");
        Assert.True(TimeZoneInfo.Local.IsAmbiguousTime(new DateTime(2024, 11, 3, 1, 30, 0, DateTimeKind.Local)), "01:30 should be ambiguous that night.");

        var envelope = TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson(input)));

        Assert.Contains($"\"createdUtc\":\"{expected}\"", Canonical(envelope), StringComparison.Ordinal);
    }

    // 2024-03-10 in New York: clocks jump from 02:00 EST to 03:00 EDT, so 02:30 local never happens. As UTC it is an
    // ordinary instant and must not be moved.
    [Theory]
    [InlineData("\"2024-03-10T02:30:00\"", "2024-03-10T02:30:00Z")]
    [InlineData("\"2024-03-10T02:30:00Z\"", "2024-03-10T02:30:00Z")]
    [InlineData("\"2024-03-10T02:30:00-05:00\"", "2024-03-10T07:30:00Z")]
    public void Instant_invalid_in_local_time_survives_exactly(string input, string expected)
    {
        using var _ = ProcessTimeZone.Set("America/New_York");
        AssertLocalZoneIs("America/New_York");
        Assert.True(TimeZoneInfo.Local.IsInvalidTime(new DateTime(2024, 3, 10, 2, 30, 0, DateTimeKind.Local)), "02:30 should not exist that night.");

        var envelope = TestData.Parse(TestData.EnvelopeJson(TestData.WidgetJson(input)));

        Assert.Contains($"\"createdUtc\":\"{expected}\"", Canonical(envelope), StringComparison.Ordinal);
    }

    [Fact]
    public void Zone_is_restored_after_a_scope()
    {
        var before = TimeZoneInfo.Local.Id;
        var variable = Environment.GetEnvironmentVariable("TZ");

        using (ProcessTimeZone.Set("Pacific/Chatham"))
        {
            AssertLocalZoneIs("Pacific/Chatham");
        }

        Assert.Equal(before, TimeZoneInfo.Local.Id);
        Assert.Equal(variable, Environment.GetEnvironmentVariable("TZ"));
    }

    private static void AssertLocalZoneIs(string zone)
    {
        Assert.Equal(zone, TimeZoneInfo.Local.Id);
        if (zone != "Etc/UTC")
        {
            Assert.NotEqual(TimeSpan.Zero, TimeZoneInfo.Local.GetUtcOffset(new DateTime(2024, 3, 10, 10, 34, 56, DateTimeKind.Utc)));
        }
    }

    private static string Canonical(WidgetEnvelope envelope) => Encoding.UTF8.GetString(TestData.CanonicalBytes(envelope));

    private static Dictionary<string, SignResult> SignAll(WidgetEnvelope envelope)
    {
        var strategies = TestData.CreateStrategies();
        return strategies.Names.ToDictionary(name => name, name => strategies[name].Sign(envelope), StringComparer.Ordinal);
    }

    private static void AssertSameSignatures(WidgetEnvelope expected, WidgetEnvelope actual)
    {
        var strategies = TestData.CreateStrategies();
        Assert.All(strategies.Names, name => Assert.Equal(strategies[name].Sign(expected), strategies[name].Sign(actual)));
    }
}
