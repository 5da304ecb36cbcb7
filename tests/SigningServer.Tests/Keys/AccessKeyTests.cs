using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Microsoft.Extensions.Logging;
using Signing.Http;
using Signing.Http.Memory;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Keys;

/// <summary>
/// SigningServer with <c>Signing:AccessKeys</c> set asks what the Functions host asks: one of the keys in the
/// <c>x-functions-key</c> header or the <c>code</c> query parameter, for sign, verify and stats; health stays open.
/// Without keys it stays open, saying so once at start-up outside Development.
/// </summary>
public sealed class AccessKeyTests
{
    private static readonly byte[] Body = Bodies.Canonical(widgetCount: 3, seed: 5);

    public static TheoryData<string, string> KeyedEndpoints() => new()
    {
        { "POST", "/api/sign" },
        { "POST", "/api/verify" },
        { "GET", "/api/stats" },
    };

    [Theory]
    [MemberData(nameof(KeyedEndpoints))]
    public async Task Without_a_key_each_keyed_endpoint_answers_401_with_a_problem(string method, string path)
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var response = await client.SendAsync(Request(method, path));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal("Access key required", problem.GetProperty("title").GetString());
        Assert.Contains("x-functions-key", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        Assert.Equal(0, factory.Budget.InUseBytes);
    }

    [Theory]
    [InlineData("3OOBvbVKWLnacPSw12ftKnMPtMsLijT_9wFcspuwqU")]
    [InlineData("3OOBvbVKWLnacPSw12ftKnMPtMsLijT_9wFcspuwqU4x")]
    [InlineData("3oobvbvkwlnacpsw12ftknmptmslijt_9wfcspuwqu4")]
    [InlineData("")]
    public async Task A_wrong_key_is_401_in_the_header_and_in_the_query(string wrong)
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var header = await client.SendAsync(Request("POST", "/api/sign", headerKey: wrong));
        using var query = await client.SendAsync(Request("POST", "/api/sign?code=" + Uri.EscapeDataString(wrong)));

        await ProblemResponse.AssertAsync(header, HttpStatusCode.Unauthorized);
        await ProblemResponse.AssertAsync(query, HttpStatusCode.Unauthorized);
    }

    [Theory]
    [InlineData(AccessKeyServerFactory.FirstKey)]
    [InlineData(AccessKeyServerFactory.SecondKey)]
    public async Task Either_key_opens_every_keyed_endpoint_in_the_header_or_the_query(string key)
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var signed = await client.SendAsync(Request("POST", "/api/sign", headerKey: key));
        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        var signature = (await signed.Content.ReadFromJsonAsync<SignResponse>())!.Signature;

        using var verified = await client.SendAsync(Request("POST", "/api/verify?code=" + Uri.EscapeDataString(key), signature: signature));
        using var stats = await client.SendAsync(Request("GET", "/api/stats", headerKey: key));
        using var statsByQuery = await client.SendAsync(Request("GET", "/api/stats?code=" + Uri.EscapeDataString(key)));

        Assert.Equal(HttpStatusCode.OK, verified.StatusCode);
        Assert.Equal(HttpStatusCode.OK, stats.StatusCode);
        Assert.Equal(HttpStatusCode.OK, statsByQuery.StatusCode);
    }

    [Fact]
    public async Task The_header_is_read_before_the_query_as_the_Functions_host_reads_them()
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var wrongHeader = await client.SendAsync(Request("POST", "/api/sign?code=" + AccessKeyServerFactory.FirstKey, headerKey: "not-the-key-but-long-enough-to-be-one"));
        using var rightHeader = await client.SendAsync(Request("POST", "/api/sign?code=wrong", headerKey: AccessKeyServerFactory.FirstKey));

        await ProblemResponse.AssertAsync(wrongHeader, HttpStatusCode.Unauthorized);
        Assert.Equal(HttpStatusCode.OK, rightHeader.StatusCode);
    }

    [Fact]
    public async Task Two_keys_in_one_request_are_no_key()
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var request = Request("POST", "/api/sign");
        request.Headers.TryAddWithoutValidation("x-functions-key", [AccessKeyServerFactory.FirstKey, AccessKeyServerFactory.SecondKey]);
        using var twoHeaders = await client.SendAsync(request);
        using var twoCodes = await client.SendAsync(Request("POST", $"/api/sign?code={AccessKeyServerFactory.FirstKey}&code={AccessKeyServerFactory.FirstKey}"));

        await ProblemResponse.AssertAsync(twoHeaders, HttpStatusCode.Unauthorized);
        await ProblemResponse.AssertAsync(twoCodes, HttpStatusCode.Unauthorized);
    }

    [Fact]
    public async Task The_code_parameter_leaves_the_rest_of_the_query_to_the_endpoint_and_reaches_no_log()
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var before = await client.SendAsync(Request("POST", $"/api/sign?code={AccessKeyServerFactory.FirstKey}&strategy=utf8"));
        using var after = await client.SendAsync(Request("POST", $"/api/sign?strategy=transcode&code={AccessKeyServerFactory.FirstKey}"));
        using var unknown = await client.SendAsync(Request("POST", $"/api/sign?strategy=nope&code={AccessKeyServerFactory.FirstKey}"));

        Assert.Equal("utf8", (await before.Content.ReadFromJsonAsync<SignResponse>())!.Strategy);
        Assert.Equal("transcode", (await after.Content.ReadFromJsonAsync<SignResponse>())!.Strategy);
        await ProblemResponse.AssertAsync(unknown, HttpStatusCode.BadRequest);
        Assert.NotEmpty(factory.Entries);
        Assert.DoesNotContain(factory.Entries, e => e.AllText.Contains(AccessKeyServerFactory.FirstKey, StringComparison.Ordinal));
        Assert.DoesNotContain(factory.Entries, e => e.AllText.Contains(AccessKeyServerFactory.SecondKey, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Health_needs_no_key_and_without_one_shows_no_figures()
    {
        // The budget's figures would tell anyone when the server is full enough to strike; key holders read them in
        // /api/stats. The status, what a probe needs, stays.
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();

        using var health = await client.GetAsync(new Uri("/api/health", UriKind.Relative));

        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
        var report = await health.Content.ReadFromJsonAsync<JsonElement>();
        Assert.Equal("Healthy", report.GetProperty("status").GetString());
        var check = report.GetProperty("checks").GetProperty(InFlightBudgetHealthCheck.Name);
        Assert.Equal("Healthy", check.GetProperty("status").GetString());
        Assert.False(check.TryGetProperty("data", out _), check.ToString());
    }

    [Fact]
    public async Task With_keys_start_up_says_how_many_and_never_which()
    {
        using var factory = AccessKeyServerFactory.WithTwoKeys();
        using var client = factory.CreateClient();
        using var _ = await client.GetAsync(new Uri("/api/health", UriKind.Relative));

        var entry = Assert.Single(factory.Entries, e => e.EventName == "AccessKeysRequired");
        Assert.Equal(LogLevel.Information, entry.Level);
        Assert.Equal(2, entry.Fields["KeyCount"]);
        Assert.DoesNotContain(factory.Entries, e => e.EventName == "EndpointsOpen");
    }

    [Theory]
    [InlineData("Production")]
    [InlineData("Staging")]
    [InlineData(SigningServerFactory.TestingEnvironment)]
    public async Task Without_keys_outside_Development_it_is_open_with_one_warning_line(string environment)
    {
        using var factory = AccessKeyServerFactory.Create(environment);
        using var client = factory.CreateClient();

        using var signed = await client.SendAsync(Request("POST", "/api/sign"));

        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        var warning = Assert.Single(factory.Entries, e => e.EventName == "EndpointsOpen");
        Assert.Equal(LogLevel.Warning, warning.Level);
        Assert.Contains("Signing:AccessKeys", warning.Message, StringComparison.Ordinal);
        Assert.Contains(environment, warning.Message, StringComparison.Ordinal);
        Assert.Single(factory.Entries, e => e.Level >= LogLevel.Warning);
    }

    [Fact]
    public async Task Without_keys_in_Development_it_is_open_and_says_nothing()
    {
        using var factory = AccessKeyServerFactory.Create("Development");
        using var client = factory.CreateClient();

        using var signed = await client.SendAsync(Request("POST", "/api/sign"));

        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        Assert.DoesNotContain(factory.Entries, e => e.EventName is "EndpointsOpen" or "AccessKeysRequired");
    }

    private static HttpRequestMessage Request(string method, string path, string? headerKey = null, string? signature = null)
    {
        var request = new HttpRequestMessage(new HttpMethod(method), new Uri(path, UriKind.Relative));
        if (method == "POST")
        {
            request.Content = Bodies.Json(Body);
        }

        if (headerKey is not null)
        {
            request.Headers.TryAddWithoutValidation("x-functions-key", headerKey);
        }

        if (path.StartsWith("/api/verify", StringComparison.Ordinal))
        {
            request.Headers.TryAddWithoutValidation(Signing.Http.Keys.SignatureHeader.Name, VerifyRequests.Header(signature ?? new string('0', 64)));
        }

        return request;
    }
}
