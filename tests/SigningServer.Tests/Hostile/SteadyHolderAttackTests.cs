using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Requests;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// The steady holders: connections send 1.5 MiB of a <c>transcode</c> body at once (charged twice that) and then 16 KiB
/// every 400 ms, never silent for a beat, so the cut for silence spares them, and they hold most of the budget for as
/// long as the body limit lets them grow. While the budget is full, a body whose client took longer than the hold window (twice the stall timeout) to send
/// what it holds, at the rate it sends, is cut too: an honest client retrying as <c>Retry-After</c> says is signed within
/// seconds, where before it got 503 for as long as the holders kept sending.
/// </summary>
public sealed class SteadyHolderAttackTests(SteadyHolderAttackTests.Factory factory) : IClassFixture<SteadyHolderAttackTests.Factory>
{
    // Two holders charged 3.3 MiB each, and what they trickle for 10 s, leave less of the 9 MiB budget than the 1 MB
    // sign below needs to parse (about 3.5 MB), and never fill it themselves, so neither is refused as it grows.
    private const int Holders = 2;
    private const int Burst = 3 * 512 * 1024;

    private static readonly byte[] Envelope = Bodies.Canonical(widgetCount: 3000, seed: 29);

    [Fact]
    public async Task A_full_budget_cuts_bodies_that_hold_far_more_than_they_send_and_the_honest_retry_is_signed()
    {
        using var client = factory.CreateStreamingClient();
        var mark = factory.Mark();
        var slowBodies = factory.Services.GetRequiredService<SlowBodies>();
        var cutBefore = slowBodies.Cut;
        var head = RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=transcode", $"Content-Length: {Factory.BodyLimit.ToString(CultureInfo.InvariantCulture)}\r\n");
        var body = Bodies.Padded(Factory.BodyLimit);

        var holders = new List<RawHttpConnection>();
        var trickles = new List<Task>();
        using var stop = new CancellationTokenSource();
        try
        {
            for (var i = 0; i < Holders; i++)
            {
                var holder = await RawHttpConnection.OpenAsync(client.BaseAddress!);
                holders.Add(holder);
                await holder.SendAsync(head);
                await holder.SendAsync(body.AsMemory(0, Burst));
                trickles.Add(Task.Run(async () =>
                {
                    for (var next = Burst; !holder.HasAnswered && !stop.IsCancellationRequested; next += 16 * 1024)
                    {
                        await Task.Delay(400, CancellationToken.None);
                        await holder.SendAsync(body.AsMemory(next, 16 * 1024));
                    }
                }));
            }

            Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes >= Holders * 2 * Burst, TimeSpan.FromSeconds(10)));

            // The honest client, retrying after Retry-After as long as it is refused.
            var honest = Stopwatch.StartNew();
            var refusals = 0;
            HttpResponseMessage signed;
            while (true)
            {
                signed = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Envelope));
                if (signed.StatusCode != HttpStatusCode.ServiceUnavailable || honest.Elapsed > TimeSpan.FromSeconds(20))
                {
                    break;
                }

                refusals++;
                signed.Dispose();
                await Task.Delay(TimeSpan.FromSeconds(1));
            }

            using (signed)
            {
                Assert.True(signed.StatusCode == HttpStatusCode.OK, $"{signed.StatusCode} after {refusals} refusals in {honest.Elapsed}");
                Assert.Equal(TestKey.SignatureOf(Envelope), (await signed.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
            }

            // Refused at first, signed once the holders had held more than they send in the window (4 s) at their rate.
            Assert.InRange(refusals, 1, 12);
            var answers = await Task.WhenAll(holders.Select(h => h.ReadToEndAsync(TimeSpan.FromSeconds(10))));
            Assert.All(answers, answer =>
            {
                Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
                Assert.Contains("arrived too slowly for the memory it holds", answer, StringComparison.Ordinal);
            });
            Assert.Equal(Holders, slowBodies.Cut - cutBefore);
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(trickles).ContinueWith(_ => { }, TaskScheduler.Default);
            foreach (var holder in holders)
            {
                holder.Dispose();
            }
        }

        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes == 0 && factory.Pool.InUseBytes == 0, TimeSpan.FromSeconds(10)));
        factory.AssertNoServerFaultSince(mark, "steady holders cut for room", refusalsExpected: true);
    }

    /// <summary>Real Kestrel with a 9 MiB budget, a 4 MiB body limit and a 2 s stall timeout (a 4 s hold window).</summary>
    public sealed class Factory : HostileKestrelFactory
    {
        /// <summary>The body limit, past what the holders send in the test.</summary>
        public const int BodyLimit = 4 * 1024 * 1024;

        /// <summary>Creates the factory; the server starts on first use.</summary>
        public Factory()
            : base(new Dictionary<string, string?>
            {
                ["Signing:MaxInFlightBytes"] = (9 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
                ["Signing:MaxRequestBodyBytes"] = BodyLimit.ToString(CultureInfo.InvariantCulture),
                ["Signing:BodyStallTimeout"] = "00:00:02",
            })
        {
        }
    }
}
