using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;
using Signing.Tests.Bodies;

namespace SigningFunctions.Tests;

/// <summary>
/// Client mistakes through the published worker: the worker's endpoint answers them with problem details and the
/// right 4xx, and the test host's routes (from the functions' triggers) answer the host's empty 404 for an unknown path or method.
/// </summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerProblemTests(PublishedWorker worker)
{
    [Fact]
    public async Task Malformed_json_is_a_400_problem()
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };

        using var response = await client.PostAsync("/api/sign", KnownAnswers.Json("{ \"widgets\" : [ "));

        var problem = await WorkerProblems.AssertAsync(response, HttpStatusCode.BadRequest, host);
        Assert.Equal("Invalid envelope", problem.GetProperty("title").GetString());
    }

    // The first part ends inside widget 150, so transcode consumes that read only to the widget's start though it
    // examined all of it; widget 200's fault is then found in a later read, which is handed back unconsumed. The answer
    // is utf8's problem, and neither the worker nor its Kestrel logs a fault.
    [Theory]
    [InlineData("{\"id\":12345,")]
    [InlineData("{]")]
    public async Task A_body_refused_after_a_read_that_ended_inside_a_widget_gets_utf8s_problem(string damage)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var canonical = CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(300, 47), CanonicalJson.Settings));
        var body = CanonicalWidgets.WithHead(canonical, widget: 200, damage);
        using var parsed = await client.PostAsync("/api/sign?strategy=utf8", KnownAnswers.Json(body));
        var expected = await WorkerProblems.AssertAsync(parsed, HttpStatusCode.BadRequest, host);

        // A query parameter the endpoint ignores finds this request's lines among all the shared worker has said.
        var path = $"/api/sign?strategy=transcode&upload={Guid.NewGuid():N}";
        using var upload = await PartialUpload.StartAsync(host.BaseAddress, path, body, CanonicalWidgets.Start(body, 150) + 100);
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse > 0, "the first part arriving");
        var answer = await upload.FinishAsync();

        Assert.StartsWith("HTTP/1.1 400", answer, StringComparison.Ordinal);
        using var problem = JsonDocument.Parse(answer[answer.IndexOf('{', StringComparison.Ordinal)..(answer.LastIndexOf('}') + 1)]);
        Assert.Equal(TitleAndPath(expected), TitleAndPath(problem.RootElement));
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse == 0, "the refused upload ended");
        await WorkerLog.AssertEndedWithoutFaultAsync(host, path);
    }

    [Fact]
    public async Task A_text_body_is_a_415_problem()
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        using var content = new StringContent(KnownAnswers.TwoWidgets, Encoding.UTF8, "text/plain");

        using var response = await client.PostAsync("/api/sign", content);

        await WorkerProblems.AssertAsync(response, HttpStatusCode.UnsupportedMediaType, host);
    }

    // The larger bodies do not fit in the loopback sockets' buffers, so the host's forwarder is still sending when the
    // worker answers: the worker's Kestrel must read the rest (SigningKestrelLimits.ApplyBehindFunctionsHost), or the
    // forwarder fails mid-body and the client gets the host's 500 instead of the problem. The next request follows at once.
    [Theory]
    [InlineData("application/json", 1, false, HttpStatusCode.RequestEntityTooLarge)]
    [InlineData("application/json", 32, false, HttpStatusCode.RequestEntityTooLarge)]
    [InlineData("application/json", 32, true, HttpStatusCode.RequestEntityTooLarge)]
    [InlineData("text/plain", 32, false, HttpStatusCode.UnsupportedMediaType)]
    public async Task A_refused_body_gets_its_problem_however_large_and_the_worker_keeps_signing(
        string mediaType, int limits, bool chunked, HttpStatusCode expected)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[" + new string(' ', limits * WorkerSettings.BodyLimit) + "]}");
        using var content = new ByteArrayContent(body);
        content.Headers.ContentType = new MediaTypeHeaderValue(mediaType);
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = content };
        request.Headers.TransferEncodingChunked = chunked;

        using var response = await client.SendAsync(request);

        await WorkerProblems.AssertAsync(response, expected, host);
        using var after = await client.PostAsync("/api/sign", KnownAnswers.Json(KnownAnswers.TwoWidgets));
        Assert.True(after.StatusCode == HttpStatusCode.OK, $"{(int)after.StatusCode} after the {(int)expected}.{Environment.NewLine}{host.Output.Tail()}");
    }

    [Theory]
    [InlineData("GET", "/api/sign", HttpStatusCode.NotFound)]
    [InlineData("POST", "/api/stats", HttpStatusCode.NotFound)]
    [InlineData("POST", "/api/signature", HttpStatusCode.NotFound)]
    [InlineData("POST", "/sign", HttpStatusCode.NotFound)]
    public async Task Routes_come_from_the_triggers_under_the_api_prefix(string method, string path, HttpStatusCode expected)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        using var request = new HttpRequestMessage(new HttpMethod(method), path) { Content = KnownAnswers.Json(KnownAnswers.TwoWidgets) };

        using var response = await client.SendAsync(request);

        // The host's own answer, before any function: empty, not a problem, and a 404 for a listed path as well.
        Assert.Equal(expected, response.StatusCode);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    // The host refuses a body over its own limit before the worker reads all of it, and the invocation fails: the
    // client gets the host's 500, not the app's 413, whatever Signing:MaxRequestBodyBytes allows. The README says so.
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_body_over_the_host_s_own_limit_is_the_host_s_500_and_the_worker_keeps_signing(bool chunked)
    {
        var host = await worker.HostAsync(WorkerSettings.SmallHostLimit);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[" + new string(' ', 2 * WorkerSettings.HostBodyLimit) + "]}");
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = new ByteArrayContent(body) };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        request.Headers.TransferEncodingChunked = chunked;

        using var response = await client.SendAsync(request);

        Assert.True(response.StatusCode == HttpStatusCode.InternalServerError, $"{(int)response.StatusCode}{Environment.NewLine}{host.Output.Tail()}");
        using var after = await client.PostAsync("/api/sign", KnownAnswers.Json(KnownAnswers.TwoWidgets));
        Assert.True(after.StatusCode == HttpStatusCode.OK, $"{(int)after.StatusCode} after the 500.{Environment.NewLine}{host.Output.Tail()}");
    }

    [Fact]
    public async Task The_three_functions_are_routed_with_their_methods()
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);

        var routes = host.Routes.OrderBy(r => r.Name, StringComparer.Ordinal).Select(r => $"{string.Join(",", r.Methods)} {r.Template}");

        Assert.Equal(["POST api/sign", "GET api/stats", "POST api/verify"], routes);
    }

    [Fact]
    public async Task Authorization_level_is_declared_but_left_to_the_platform()
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };

        // Azure checks a function key before the worker sees a request to a function-level trigger; the test host, like
        // 'func start', does not. So every function must declare function-level keys, and the worker itself must
        // neither ask for a key nor be disturbed by one.
        Assert.All(host.Routes, r => Assert.Equal("function", r.AuthLevel, ignoreCase: true));
        using var withoutKey = await client.GetAsync("/api/stats");
        Assert.Equal(HttpStatusCode.OK, withoutKey.StatusCode);

        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign?strategy=utf8&code=not-a-real-key") { Content = KnownAnswers.Json(KnownAnswers.TwoWidgets) };
        request.Headers.Add("x-functions-key", "not-a-real-key");
        using var withKey = await client.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, withKey.StatusCode);
        Assert.Contains(KnownAnswers.TwoWidgetsSignature, await withKey.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }

    private static (string? Title, string? Path) TitleAndPath(JsonElement problem) =>
        (problem.GetProperty("title").GetString(), problem.TryGetProperty("path", out var path) ? path.GetString() : null);
}
