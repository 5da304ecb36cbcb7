using System.Net;
using System.Net.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Memory;

namespace SigningServer.Tests;

/// <summary>
/// Admission control: a request is charged what it will hold before it buffers its body, and one that does not fit
/// in the in-flight budget is refused at once with 503, <c>Retry-After</c> and a problem, never half-signed. Every
/// request of a burst is either signed correctly or refused, and everything charged or pooled goes back.
/// </summary>
public sealed class AdmissionTests(SmallBudgetFactory factory) : IClassFixture<SmallBudgetFactory>
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    // About 200 KB of canonical JSON: under the 256 KiB limit, and charged about 1.2 MiB with recyclable.
    private static readonly byte[] Body = Bodies.Canonical(widgetCount: 550, seed: 21);

    [Fact]
    public async Task A_full_budget_refuses_at_once_with_503_and_retry_after_and_the_held_requests_still_sign()
    {
        using var client = factory.CreateStreamingClient();
        var charge = RequestMemory.For(factory.Strategies["recyclable"], Body.Length, factory.Pool.Options.BlockSize);
        Assert.InRange(Body.Length, 150_000, SmallBudgetFactory.BodyLimit);

        // Three uploads held part-way fill the budget past the point where a fourth fits.
        var held = Enumerable.Range(0, 3).Select(_ => new HeldBodyContent(Body, 64 * 1024)).ToArray();
        var heldResponses = held.Select(content => client.PostAsync("/api/sign?strategy=recyclable", content)).ToArray();
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes >= 3 * charge, Bound));
        Assert.True(factory.Budget.LimitBytes - factory.Budget.InUseBytes < charge, $"{factory.Budget.LimitBytes - factory.Budget.InUseBytes} bytes left, a request needs {charge}");
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
        foreach (var content in held)
        {
            content.Release();
        }

        foreach (var response in await Task.WhenAll(heldResponses))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(TestKey.SignatureOf(Body), (await response.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
            response.Dispose();
        }

        await AssertEverythingReturnedAsync();
    }

    [Theory]
    [InlineData("recyclable")]
    [InlineData("transcode")]
    public async Task A_chunked_body_is_refused_as_soon_as_it_grows_past_the_budget(string strategy)
    {
        using var client = factory.CreateStreamingClient();
        var charge = RequestMemory.For(factory.Strategies["recyclable"], Body.Length, factory.Pool.Options.BlockSize);
        var held = Enumerable.Range(0, 3).Select(_ => new HeldBodyContent(Body, 64 * 1024)).ToArray();
        var heldResponses = held.Select(content => client.PostAsync("/api/sign?strategy=recyclable", content)).ToArray();
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes >= 3 * charge, Bound));

        // No Content-Length: admitted for what it holds at first, refused once what arrived no longer fits.
        var chunked = new HeldBodyContent(Body, Body.Length, declareLength: false);
        chunked.Release();
        using var response = await client.PostAsync("/api/sign?strategy=" + strategy, chunked);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.ServiceUnavailable);
        Assert.Equal(TimeSpan.FromSeconds(1), response.Headers.RetryAfter?.Delta);
        foreach (var content in held)
        {
            content.Release();
        }

        foreach (var heldResponse in await Task.WhenAll(heldResponses))
        {
            Assert.Equal(HttpStatusCode.OK, heldResponse.StatusCode);
            heldResponse.Dispose();
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
