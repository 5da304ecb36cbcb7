using System.Globalization;
using System.Net;
using Microsoft.Extensions.Logging;
using Newtonsoft.Json.Linq;
using Signing;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// What sign and verify log: structured events with the strategy, sizes and durations as named fields, and never
/// key material or any part of the payload, whatever the request.
/// </summary>
public sealed class LoggingTests(LoggingServerFactory factory) : IClassFixture<LoggingServerFactory>
{
    // Distinctive enough that it can only be in a log because the payload was copied there.
    private const string PayloadMarker = "PAYLOAD-MARKER-6b1f0e9c-never-log-me";

    [Fact]
    public async Task Sign_logs_strategy_key_id_sizes_and_durations_as_fields()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 7, seed: 81);

        var signed = await VerifyRequests.SignAsync(client, body, "?strategy=UTF8");

        var entry = Single("Signed", e => Field<int>(e, "WidgetCount") == 7);
        Assert.Equal(LogLevel.Information, entry.Level);
        Assert.Equal(typeof(SignEndpoint).FullName, entry.Category);
        Assert.Equal("utf8", entry.Fields["Strategy"]);
        Assert.Equal("default", entry.Fields["KeyId"]);
        Assert.Equal((long)body.Length, Field<long>(entry, "BodyBytes"));
        Assert.Equal(signed.BytesSigned, Field<long>(entry, "BytesSigned"));
        foreach (var phase in new[] { "ReadMilliseconds", "ParseMilliseconds", "SignMilliseconds" })
        {
            Assert.InRange(Field<double>(entry, phase), 0, Field<double>(entry, "ElapsedMilliseconds"));
        }

        Assert.True(Field<double>(entry, "SignMilliseconds") > 0, "signing takes some time");
    }

    [Fact]
    public async Task Verify_logs_the_matching_key_and_how_many_keys_it_took()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 8, seed: 82);
        var underNext = Convert.ToHexStringLower(System.Security.Cryptography.HMACSHA256.HashData(Convert.FromBase64String(LoggingServerFactory.OtherKeyBase64), body));

        using var response = await VerifyRequests.VerifyAsync(client, body, "?strategy=recyclablehash", VerifyRequests.Header(underNext));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var entry = Single("Verified", e => Field<int>(e, "WidgetCount") == 8);
        Assert.Equal("next", entry.Fields["KeyId"]);
        Assert.Equal("recyclablehash", entry.Fields["Strategy"]);
        Assert.Equal(2, Field<int>(entry, "KeysTried"));
        Assert.Equal(2, Field<int>(entry, "KeyCount"));
        Assert.Equal((long)body.Length, Field<long>(entry, "BodyBytes"));
    }

    [Fact]
    public async Task Failed_verification_is_a_warning_with_sizes()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 9, seed: 83);

        using var response = await VerifyRequests.VerifyAsync(client, body, "", VerifyRequests.Header(new string('0', 64)));

        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        var entry = Single("VerifyMismatch", e => Field<int>(e, "WidgetCount") == 9);
        Assert.Equal(LogLevel.Warning, entry.Level);
        Assert.Equal(2, Field<int>(entry, "KeyCount"));
        Assert.Equal((long)body.Length, Field<long>(entry, "BodyBytes"));
    }

    [Fact]
    public async Task Neither_key_nor_payload_ever_reaches_the_log()
    {
        using var client = factory.CreateClient();
        var marked = WithMarker(Bodies.Canonical(widgetCount: 2, seed: 84));
        var signed = await VerifyRequests.SignAsync(client, marked);

        // Every path a request can take: signed, verified, mismatched, malformed (with the marker where the parser
        // quotes what it read), unknown strategy and header carrying the marker too. (A rejected sign logs the
        // strategy it asked for, which is the caller's to choose and not the payload: see the tests below.)
        using (await VerifyRequests.VerifyAsync(client, marked, "", VerifyRequests.Header(signed.Signature)))
        using (await VerifyRequests.VerifyAsync(client, marked, "", VerifyRequests.Header(new string('a', 64))))
        using (await VerifyRequests.VerifyAsync(client, marked, "", PayloadMarker))
        using (await VerifyRequests.VerifyAsync(client, marked, "?strategy=" + PayloadMarker, VerifyRequests.Header(signed.Signature)))
        using (await client.PostAsync("/api/sign?strategy=unknown", Bodies.Json(marked)))
        using (await client.PostAsync("/api/sign", Bodies.Json("{\"widgets\":[{\"id\":\"" + PayloadMarker + "\"}]}")))
        using (await client.PostAsync("/api/sign", Bodies.Json("{\"widgets\":[" + PayloadMarker + "]}")))
        using (await client.PostAsync("/api/sign", Bodies.Json("{\"" + PayloadMarker + "\":[]}")))
        {
        }

        var keys = new[] { TestKey.Base64, LoggingServerFactory.OtherKeyBase64 };
        var forbidden = keys
            .SelectMany(k => new[] { k, Convert.ToHexStringLower(Convert.FromBase64String(k)), Convert.ToHexString(Convert.FromBase64String(k)) })
            .Append(PayloadMarker)
            .ToArray();
        var entries = factory.Entries.ToList();
        Assert.Contains(entries, e => e.EventName == "Signed");
        Assert.Contains(entries, e => e.EventName == "SignRejected");
        Assert.Contains(entries, e => e.EventName == "VerifyRejected");
        Assert.Contains(entries, e => e.EventName == "KeyRingLoaded");
        foreach (var entry in entries)
        {
            foreach (var secret in forbidden)
            {
                Assert.DoesNotContain(secret, entry.AllText, StringComparison.OrdinalIgnoreCase);
            }
        }
    }

    [Fact]
    public async Task Rejections_log_status_and_the_fixed_title_only()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=streaming", Bodies.Json("{\"widgets\":[{\"id\":\"not-a-guid-" + PayloadMarker + "\"}]}"));

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var entry = Single("SignRejected", e => Equals(e.Fields["Strategy"], "streaming"));
        Assert.Equal(400, Field<int>(entry, "StatusCode"));
        Assert.Equal("Invalid envelope", entry.Fields["Problem"]);
    }

    [Theory]
    [InlineData("bogus", "bogus", "Unknown strategy")]
    [InlineData("utf8&strategy=twice", "utf8,twice", "Ambiguous strategy")]
    [InlineData("%E2%9C%93", "\u2713", "Unknown strategy")]
    [InlineData("odd%0Aname", "odd?name", "Unknown strategy")]
    [InlineData("odd%0D%0AFake%20log%20line", "odd??Fake log line", "Unknown strategy")]
    [InlineData("odd%1B%5B31mred", "odd?[31mred", "Unknown strategy")]
    [InlineData("odd%E2%80%AEeman", "odd?eman", "Unknown strategy")]
    public async Task A_rejected_sign_logs_the_strategy_it_asked_for_with_line_breaks_and_hidden_characters_replaced(string query, string logged, string problem)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign?strategy=" + query, Bodies.Json(Bodies.Canonical(widgetCount: 1, seed: 85)));

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var entry = Single("SignRejected", e => Equals(e.Fields["Strategy"], logged));
        Assert.Equal(problem, entry.Fields["Problem"]);
        Assert.StartsWith($"Sign with {logged} rejected with 400 ", entry.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_long_requested_strategy_is_logged_cut_as_the_problem_details_cut_it()
    {
        using var client = factory.CreateClient();
        var name = "long" + new string('x', 60) + "-and-then-some";

        using var response = await client.PostAsync("/api/sign?strategy=" + name, Bodies.Json(Bodies.Canonical(widgetCount: 1, seed: 86)));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        var cut = "long" + new string('x', 60) + "\u2026";
        Assert.Single(factory.Entries, e => e.EventName == "SignRejected" && Equals(e.Fields["Strategy"], cut));
        Assert.Contains($"'{cut}'", ProblemResponse.Detail(problem), StringComparison.Ordinal);
    }

    private static byte[] WithMarker(byte[] canonical)
    {
        var envelope = JObject.Parse(CanonicalJson.Utf8.GetString(canonical));
        envelope["widgets"]![0]!["property3"] = PayloadMarker;
        return Bodies.Utf8(envelope.ToString(Newtonsoft.Json.Formatting.None));
    }

    private static T Field<T>(CapturingLoggerProvider.LogEntry entry, string name)
        where T : IConvertible =>
        (T)Convert.ChangeType(entry.Fields[name]!, typeof(T), CultureInfo.InvariantCulture);

    private CapturingLoggerProvider.LogEntry Single(string eventName, Func<CapturingLoggerProvider.LogEntry, bool> match) =>
        Assert.Single(factory.Entries, e => e.EventName == eventName && match(e));
}
