using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;

namespace SigningFunctions.Tests;

/// <summary>
/// <c>POST /api/sign</c> through the published worker under the test host: every strategy gives the HMAC python
/// computes over the canonical bytes, for a body already canonical and for one that only canonicalizes to them.
/// </summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerSignTests(PublishedWorker worker)
{
    /// <summary>Every strategy the README documents; the worker must offer exactly these.</summary>
    private static readonly string[] Strategies = ["string", "memorystream", "recyclable", "recyclablehash", "streaming", "utf8", "transcode"];

    [Fact]
    public async Task The_worker_offers_every_documented_strategy()
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };

        using var response = await client.PostAsync("/api/sign?strategy=nosuchstrategy", KnownAnswers.Json(KnownAnswers.TwoWidgets));

        var problem = await WorkerProblems.AssertAsync(response, HttpStatusCode.BadRequest, host);
        var offered = problem.GetProperty("validStrategies").EnumerateArray().Select(s => s.GetString()).Order().ToArray();
        Assert.Equal(Strategies.Order().ToArray(), offered);
    }

    [Theory]
    [InlineData(KnownAnswers.TwoWidgets)]
    [InlineData(KnownAnswers.TwoWidgetsLoosely)]
    public async Task Every_strategy_signs_to_the_HMAC_python_computes(string body)
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };

        foreach (var strategy in Strategies)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, KnownAnswers.Json(body));

            Assert.True(response.StatusCode == HttpStatusCode.OK, $"{strategy}: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync()}{Environment.NewLine}{host.Output.Tail()}");
            using var signed = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
            Assert.Equal(KnownAnswers.TwoWidgetsSignature, signed.RootElement.GetProperty("signature").GetString());
            Assert.Equal(strategy, signed.RootElement.GetProperty("strategy").GetString());
            Assert.Equal(2, signed.RootElement.GetProperty("widgetCount").GetInt32());
            Assert.Equal(733, signed.RootElement.GetProperty("bytesSigned").GetInt64());
        }
    }

    [Fact]
    public async Task A_larger_generated_envelope_streams_through_and_signs_to_pythons_HMAC()
    {
        var host = await worker.HostAsync(WorkerSettings.Shared);
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        // About 110 KB: several of the pool's blocks and of the forwarder's buffers, under the 256 KiB limit.
        var body = CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(300, 11), CanonicalJson.Settings));
        var expected = await KnownAnswers.PythonHmacAsync(body);

        foreach (var strategy in new[] { "recyclable", "transcode" })
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, KnownAnswers.Json(body));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            var signed = await response.Content.ReadFromJsonAsync<JsonElement>();
            Assert.Equal(expected, signed.GetProperty("signature").GetString());
            Assert.Equal(body.Length, signed.GetProperty("bytesSigned").GetInt64());
        }
    }
}
