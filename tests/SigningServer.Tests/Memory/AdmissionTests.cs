using System.Net;
using System.Net.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Memory;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Memory;

/// <summary>
/// Admission control: a request is charged what it holds, as it comes to hold it (the blocks its body has filled, then
/// the envelope's and the strategy's multiples), never what it only declares; one whose next step does not fit in the
/// in-flight budget is refused at once with 503, <c>Retry-After</c> and a problem, never half-signed. Every request of a
/// burst is either signed correctly or refused, and everything charged or pooled goes back.
/// </summary>
public sealed class AdmissionTests(SmallBudgetFactory factory) : IClassFixture<SmallBudgetFactory>
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    // About 200 KB of canonical JSON: under the 256 KiB limit, and charged about 1.2 MiB with recyclable once parsed.
    private static readonly byte[] Body = Bodies.Canonical(widgetCount: 550, seed: 21);

    [Fact]
    public async Task A_request_held_mid_upload_is_charged_only_for_the_blocks_it_has_filled()
    {
        using var client = factory.CreateStreamingClient();
        var blockSize = factory.Pool.Options.BlockSize;
        Assert.InRange(Body.Length, 150_000, SmallBudgetFactory.BodyLimit);

        var held = new HeldBodyContent(Body, 64 * 1024);
        var response = client.PostAsync("/api/sign?strategy=recyclable", held);
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes > 0, Bound));

        // 64 KiB in one block, not the whole declared body's charge of about 1.2 MiB.
        Assert.Equal(blockSize, factory.Budget.InUseBytes);
        Assert.True(RequestMemory.For(factory.Strategies["recyclable"], Body.Length, Body.Length, blockSize) > 4 * blockSize);
        held.Release();
        using var signed = await response;
        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        Assert.Equal(TestKey.SignatureOf(Body), (await signed.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
        await AssertEverythingReturnedAsync();
    }

    [Fact]
    public async Task A_full_budget_refuses_at_once_with_503_and_retry_after_and_signs_again_once_room_opens()
    {
        using var client = factory.CreateStreamingClient();

        // What other requests in flight hold: all but less than a block.
        using (var others = factory.Budget.Open())
        {
            Assert.True(others.TryRaiseTo(factory.Budget.LimitBytes - factory.Budget.InUseBytes - InFlightBudget.BytesPerPermit));
            var refusedBefore = factory.Budget.Refused;

            var burst = await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Body))));

            foreach (var response in burst)
            {
                var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.ServiceUnavailable);
                Assert.Equal("Server busy", problem.GetProperty("title").GetString());
                Assert.Equal(TimeSpan.FromSeconds(1), response.Headers.RetryAfter?.Delta);
                response.Dispose();
            }

            Assert.Equal(refusedBefore + 16, factory.Budget.Refused);
        }

        using var signed = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Body));
        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        Assert.Equal(TestKey.SignatureOf(Body), (await signed.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
        await AssertEverythingReturnedAsync();
    }

    [Theory]
    [InlineData("recyclable", false)]
    [InlineData("recyclable", true)]
    [InlineData("transcode", true)]
    public async Task A_body_is_refused_as_soon_as_what_it_holds_no_longer_fits(string strategy, bool chunked)
    {
        using var client = factory.CreateStreamingClient();
        var blockSize = factory.Pool.Options.BlockSize;

        // Room for the body's blocks as they arrive, not for the envelope parsed from them (recyclable), nor for
        // transcode's multiple of the body.
        using (var others = factory.Budget.Open())
        {
            var room = RequestMemory.ForArrivedBody(Body.Length, blockSize) + InFlightBudget.BytesPerPermit;
            Assert.True(room < RequestMemory.ForParse(Body.Length, blockSize));
            Assert.True(others.TryRaiseTo(factory.Budget.LimitBytes - factory.Budget.InUseBytes - room));
            var content = new HeldBodyContent(Body, Body.Length, declareLength: !chunked);
            content.Release();

            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, content);

            await ProblemResponse.AssertAsync(response, HttpStatusCode.ServiceUnavailable);
            Assert.Equal(TimeSpan.FromSeconds(1), response.Headers.RetryAfter?.Delta);
        }

        await AssertEverythingReturnedAsync();
    }

    [Fact]
    public async Task A_burst_of_concurrent_uploads_gets_only_correct_200s_and_503s()
    {
        using var client = factory.CreateStreamingClient();
        var statuses = new List<HttpStatusCode>();

        foreach (var strategy in factory.StrategyNames)
        {
            var burst = await Task.WhenAll(Enumerable.Range(0, 12).Select(_ => client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(Body))));
            foreach (var response in burst)
            {
                statuses.Add(response.StatusCode);
                if (response.StatusCode == HttpStatusCode.OK)
                {
                    Assert.Equal(TestKey.SignatureOf(Body), (await response.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
                }
                else
                {
                    await ProblemResponse.AssertAsync(response, HttpStatusCode.ServiceUnavailable);
                    Assert.Equal(TimeSpan.FromSeconds(1), response.Headers.RetryAfter?.Delta);
                }

                response.Dispose();
            }
        }

        Assert.Contains(HttpStatusCode.OK, statuses);
        await AssertEverythingReturnedAsync();
    }

    [Fact]
    public async Task Health_and_stats_report_the_budget()
    {
        using var client = factory.CreateClient();

        using var health = await client.GetAsync("/api/health");
        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
        var report = await health.Content.ReadFromJsonAsync<System.Text.Json.JsonElement>();
        Assert.Equal("Healthy", report.GetProperty("status").GetString());
        var data = report.GetProperty("checks").GetProperty(InFlightBudgetHealthCheck.Name).GetProperty("data");
        Assert.Equal(SmallBudgetFactory.BudgetBytes, data.GetProperty("limitBytes").GetInt64());

        var stats = await client.GetFromJsonAsync<Signing.Http.Stats.ServiceStats>("/api/stats");
        Assert.Equal(SmallBudgetFactory.BudgetBytes, stats!.InFlight.LimitBytes);
        var limits = factory.Services.GetRequiredService<StrategyBodyLimits>();
        Assert.Equal(factory.StrategyNames, stats.InFlight.MaxBodyBytes.Keys);
        Assert.All(factory.StrategyNames, name => Assert.Equal(limits[name], stats.InFlight.MaxBodyBytes[name]));
        Assert.Equal(factory.Budget.Refused, stats.InFlight.Refused);
        Assert.Equal(factory.Budget.Refused, stats.Strategies.Sum(s => s.Refused));
    }

    private async Task AssertEverythingReturnedAsync()
    {
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes == 0 && factory.Pool.InUseBytes == 0, Bound));
        using var client = factory.CreateClient();
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
