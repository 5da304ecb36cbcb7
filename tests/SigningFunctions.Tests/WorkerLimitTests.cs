using System.Diagnostics;
using System.Net;
using System.Text;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;
using Signing.Tests.Bodies;
using Signing.Tests.Waiting;

namespace SigningFunctions.Tests;

/// <summary>
/// The limits that protect the worker, through the test host: the in-flight budget refuses with 503 and
/// <c>Retry-After</c> while another request holds it, a body that stops arriving is cut off by the worker's own
/// stall timeout, and one whose client goes away ends quietly; either way its memory is released at once.
/// </summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerLimitTests(PublishedWorker worker)
{
    /// <remarks>
    /// A request holds budget for what has arrived, not for what it declares: the held upload is <c>transcode</c>, charged
    /// its fixed part and 2 bytes per body byte as the bytes come, and it sends all but the last few KB before it waits.
    /// </remarks>
    [Fact]
    public async Task While_one_request_holds_the_budget_another_is_refused_with_503_and_retry_after()
    {
        var host = await worker.HostAsync(WorkerSettings.SmallBudget);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var held = CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(975, 5), CanonicalJson.Settings));
        Assert.InRange(held.Length, 340_000, 376_000);
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse == 0, "before the test");

        using var holding = await PartialUpload.StartAsync(host.BaseAddress, "/api/sign?strategy=transcode", held, held.Length - 4096);
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse > WorkerSettings.BudgetBytes * 9 / 10, "the held request");

        using (var refused = await client.PostAsync("/api/sign?strategy=transcode", KnownAnswers.Json(KnownAnswers.TwoWidgets)))
        {
            var problem = await WorkerProblems.AssertAsync(refused, HttpStatusCode.ServiceUnavailable, host);
            Assert.Equal("Server busy", problem.GetProperty("title").GetString());
            Assert.Equal(TimeSpan.FromSeconds(1), refused.Headers.RetryAfter?.Delta);
        }

        var answer = await holding.FinishAsync();
        Assert.StartsWith("HTTP/1.1 200", answer, StringComparison.Ordinal);
        Assert.Contains(await KnownAnswers.PythonHmacAsync(held), answer, StringComparison.Ordinal);
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse == 0, "after the held request");
    }

    /// <remarks>
    /// The worker cuts the body off after its 1 s of silence and answers 408, and its charge goes back at once. The
    /// client sees that answer only when its request ends: the host's forwarder (YARP over SocketsHttpHandler, HTTP/1.1
    /// to the worker, as on the Functions host) finishes sending a request before it returns the response. So through
    /// the host a stalled client holds its own connection, not the worker's memory. A body of spaces goes silent where
    /// the tokenizer has consumed all it read; a canonical one cut inside a widget, with the widget's start read but not
    /// consumed, as transcode leaves every read that ends inside one.
    /// </remarks>
    [Theory]
    [InlineData("recyclable", false)]
    [InlineData("transcode", false)]
    [InlineData("transcode", true)]
    public async Task A_body_that_goes_silent_is_cut_off_by_the_worker_in_time_and_answered_408(string strategy, bool cutInsideWidget)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var body = cutInsideWidget
            ? CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(300, 9), CanonicalJson.Settings))
            : Encoding.UTF8.GetBytes("{\"widgets\":[" + new string(' ', 100_000) + "]}");
        var sent = cutInsideWidget ? CanonicalWidgets.Start(body, 150) + 100 : 50_000;

        using var stalled = await PartialUpload.StartAsync(host.BaseAddress, "/api/sign?strategy=" + strategy, body, sent);
        var silent = Stopwatch.StartNew();
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse > 0, "the stalled request arriving");
        await WorkerStats.UntilInFlightAsync(client, inUse => inUse == 0, "the stalled request cut off");

        Assert.InRange(silent.Elapsed, TimeSpan.FromSeconds(0.8), TimeSpan.FromSeconds(8));
        var answer = await stalled.FinishAsync();
        Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
        Assert.Contains("Body stalled", answer, StringComparison.Ordinal);
        using var after = await client.PostAsync("/api/sign?strategy=" + strategy, KnownAnswers.Json(KnownAnswers.TwoWidgets));
        Assert.Equal(HttpStatusCode.OK, after.StatusCode);
    }

    /// <remarks>
    /// The host's forwarder ends its own request to the worker when the client goes, so the worker sees its reader
    /// fail mid-body whatever the client did. SigningServer's ClientDisconnectTests cover the clients themselves.
    /// </remarks>
    [Theory]
    [InlineData("recyclable", false)]
    [InlineData("recyclable", true)]
    [InlineData("transcode", false)]
    [InlineData("transcode", true)]
    public async Task A_client_gone_mid_upload_gives_its_memory_back_and_leaves_no_fault(string strategy, bool reset)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var body = CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(600, 7), CanonicalJson.Settings));
        // A query parameter the endpoint ignores finds this request's lines among all the shared worker has said.
        var path = $"/api/sign?strategy={strategy}&upload={Guid.NewGuid():N}";
        using (var gone = await PartialUpload.StartAsync(host.BaseAddress, path, body, 64 * 1024))
        {
            await WorkerStats.UntilInFlightAsync(client, inUse => inUse > 0, "the upload arriving");
            gone.Close(reset);
        }

        await WorkerStats.UntilInFlightAsync(client, inUse => inUse == 0, "the upload ended");
        await WorkerLog.AssertEndedWithoutFaultAsync(host, path);
        using var after = await client.PostAsync("/api/sign?strategy=" + strategy, KnownAnswers.Json(KnownAnswers.TwoWidgets));
        Assert.True(after.StatusCode == HttpStatusCode.OK, $"{(int)after.StatusCode} after the client went.{Environment.NewLine}{host.Output.Tail()}");
    }
}
