using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Instants and Guids in every form a client might send: those the object path accepts come out the same, and those it
/// refuses are refused with the same error.
/// </summary>
public sealed class ValueEquivalenceTests
{
    [Fact]
    public void Instants_of_every_form_are_answered_alike() => BothPaths.AssertSame(InstantBodies());

    /// <summary>A body for each instant form, accepted or refused by the object path.</summary>
    public static IEnumerable<string> InstantBodies()
    {
        string[] instants =
        [
            // Fractions of 0 to 7 digits and more, with Z, with offsets, and with no zone at all (taken as UTC).
            "2024-02-29T23:59:58", "2024-02-29T23:59:58Z", "2024-02-29T23:59:58.1Z", "2024-02-29T23:59:58.12Z",
            "2024-02-29T23:59:58.123Z", "2024-02-29T23:59:58.1234Z", "2024-02-29T23:59:58.12345Z", "2024-02-29T23:59:58.123456Z",
            "2024-02-29T23:59:58.1234567Z", "2024-02-29T23:59:58.12345678Z", "2024-02-29T23:59:58.1234567891234Z",
            "2024-02-29T23:59:58.9999999Z", "2024-02-29T23:59:58.99999999Z", "2024-02-29T23:59:58.0000000Z", "2024-02-29T23:59:58.0Z",
            "2024-02-29T23:59:58.1000000", "2024-02-29T23:59:58.5", "2024-02-29T23:59:58.", "2024-02-29T23:59:58.Z",
            "2024-02-29T23:59:58+00:00", "2024-02-29T23:59:58-00:00", "2024-02-29T23:59:58+05:45", "2024-02-29T23:59:58.123-03:30",
            "2024-02-29T23:59:58+14:00", "2024-02-29T23:59:58-14:00", "2024-02-29T23:59:58+14:01", "2024-02-29T23:59:58+23:59",
            "2024-02-29T23:59:58+24:00", "2024-02-29T23:59:58+0545", "2024-02-29T23:59:58+05", "2024-02-29T23:59:58+5:45",
            "2024-02-29T23:59:58z", "2024-02-29t23:59:58Z", "2024-02-29 23:59:58Z", "2024-02-29T23:59Z", "2024-02-29T23:59",
            "2024-02-29T23Z", "2024-02-29", "2024-02-29Z", "2024-02", "2024", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z", "2024-02-29T24:00:00Z", "2024-02-29T23:60:00Z", "2024-02-29T23:59:60Z",
            "0001-01-01T00:00:00Z", "0001-01-01T00:00:00", "0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01",
            "9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.9999999-00:01", "9999-12-31T23:59:59.9999999+00:01",
            "9999-12-31T23:59:59", "10000-01-01T00:00:00Z", "+2024-02-29T00:00:00Z", "-2024-02-29T00:00:00Z",
            " 2024-02-29T23:59:58Z", "2024-02-29T23:59:58Z ", "2024-02-29T23:59:58Zx", "03/10/2024", "yesterday", "",
            "2024-02-29T23:59:58.123456789012345678901234567890Z", "\\u0032024-02-29T23:59:58Z", "2024-02-29T23:59:58\\u005a",
            "2024-02-29T23:59:58\\u002B01:00", "2024-02-29T23:59:58.123\\u00e9",
        ];
        string[] notStrings = ["5", "null", "true", "[]", "{}", "1.5e3", "[\"2024-02-29\"]"];
        return instants.Select(i => EnvelopeJson.Envelope(EnvelopeJson.Widget("createdUtc", $"\"{i}\"")))
            .Concat(notStrings.Select(v => EnvelopeJson.Envelope(EnvelopeJson.Widget("createdUtc", v))));
    }

    [Fact]
    public void Guids_of_every_form_and_case_are_answered_alike()
    {
        var id = new Guid("0f8fad5b-d9cb-469f-a165-70867728950e");
        string[] guids =
        [
            id.ToString("D"), id.ToString("D").ToUpperInvariant(), "0F8fAd5B-d9CB-469f-A165-70867728950E", id.ToString("N"),
            id.ToString("B"), id.ToString("P"), id.ToString("X"), id.ToString("D")[..^1], id.ToString("D") + "0",
            " " + id.ToString("D"), id.ToString("D") + " ", id.ToString("D").Replace('-', '_'), "0f8fad5b-d9cb-469f-a165-70867728950g",
            "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", string.Empty,
            "\\u0030f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b\\u002Dd9cb-469f-a165-70867728950e",
            string.Concat(id.ToString("D").Select(c => $"\\u{(int)c:x4}")), "{0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5bd9cb469fa16570867728950",
        ];
        string[] notGuids = ["12345", "null", "true", "{}", "[]", "\"\\uD800\""];
        var bodies = guids.Select(g => EnvelopeJson.Envelope(EnvelopeJson.Widget("id", $"\"{g}\"")))
            .Concat(notGuids.Select(v => EnvelopeJson.Envelope(EnvelopeJson.Widget("id", v))));

        BothPaths.AssertSame(bodies);
    }
}
