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
/// The bodies attack: connections send a megabyte of a body and then nothing, or a byte now and then, and so hold
/// what they sent in the in-flight budget. A request the full budget refuses gets its 503 as before, but the bodies
/// that have gone a beat without 16 KiB are cut with 408 at once, long before the stall timeout, so the client's retry
/// is signed; a body that is arriving, however long it has been arriving, is not cut.
/// </summary>
public sealed class SlowBodyAttackTests(SlowBodyAttackTests.Factory factory) : IClassFixture<SlowBodyAttackTests.Factory>
{
    // Seven holders charged 1 MiB each leave less of the 9 MiB budget than the 1 MB sign below needs to parse (about
    // 3.5 MB). Each sends 64 KiB short of its eighth 128 KiB block, so a trickled byte takes no new block, whose charge
    // the full budget would refuse.
    private const int Silent = 6;
    private const int Held = (1024 - 64) * 1024;

    private static readonly byte[] Envelope = Bodies.Canonical(widgetCount: 3000, seed: 23);

    [Fact]
    public async Task A_full_budget_cuts_the_bodies_that_are_not_arriving_and_spares_the_one_that_is()
    {
        using var client = factory.CreateStreamingClient();
        var mark = factory.Mark();
        var slowBodies = factory.Services.GetRequiredService<SlowBodies>();
        var cutBefore = slowBodies.Cut;
        var head = RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=recyclable", $"Content-Length: {Envelope.Length.ToString(CultureInfo.InvariantCulture)}\r\n");

        var holders = new List<RawHttpConnection>();
        using var stop = new CancellationTokenSource();
        Task? trickling = null;
        try
        {
            // Six send most of a megabyte and go silent; a seventh sends as much and then a byte every 200 ms, which
            // would keep silence away from a clock that any byte restarts at zero.
            for (var i = 0; i <= Silent; i++)
            {
                var holder = await RawHttpConnection.OpenAsync(client.BaseAddress!);
                holders.Add(holder);
                await holder.SendAsync(head);
                await holder.SendAsync(Envelope.AsMemory(0, Held));
            }

            var trickler = holders[^1];
            trickling = Task.Run(async () =>
            {
                for (var next = Held; next < Envelope.Length - 1 && !stop.IsCancellationRequested; next++)
                {
                    await Task.Delay(200, CancellationToken.None);
                    await trickler.SendAsync(Envelope.AsMemory(next, 1));
                }
            });
            Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes >= (Silent + 1) * 1024 * 1024, TimeSpan.FromSeconds(10)));

            // An honest sender streams its body at 160 KiB/s, so it is still arriving two beats later (it takes 7 s).
            var steady = Task.Run(() => client.PostAsync("/api/sign?strategy=recyclable", new PacedBodyContent(Envelope, 16 * 1024, TimeSpan.FromMilliseconds(100))));
            await Task.Delay(TimeSpan.FromSeconds(2));

            var started = System.Diagnostics.Stopwatch.StartNew();
            using (var refused = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Envelope)))
            {
                Assert.Equal(HttpStatusCode.ServiceUnavailable, refused.StatusCode);
                Assert.Equal("1", refused.Headers.GetValues("Retry-After").Single());
            }

            var answers = await Task.WhenAll(holders.Select(h => h.ReadToEndAsync(Factory.StallTimeout)));
            Assert.All(answers, answer =>
            {
                Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
                Assert.Contains("while the server was full; the request was cut off to make room.", answer, StringComparison.Ordinal);
            });
            Assert.True(started.Elapsed < Factory.StallTimeout / 2, $"the holders were cut {started.Elapsed} after the refusal");
            Assert.Equal(Silent + 1, slowBodies.Cut - cutBefore);

            // The retry finds the room, and the body that was arriving throughout was signed.
            using (var retried = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Envelope)))
            {
                Assert.Equal(HttpStatusCode.OK, retried.StatusCode);
                Assert.Equal(TestKey.SignatureOf(Envelope), (await retried.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
            }

            using var steadyResponse = await steady;
            Assert.Equal(HttpStatusCode.OK, steadyResponse.StatusCode);
            Assert.Equal(TestKey.SignatureOf(Envelope), (await steadyResponse.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
        }
        finally
        {
            await stop.CancelAsync();
            foreach (var holder in holders)
            {
                holder.Dispose();
            }

            if (trickling is not null)
            {
                await Task.WhenAny(trickling);
            }
        }

        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes == 0 && factory.Pool.InUseBytes == 0, TimeSpan.FromSeconds(10)));
        factory.AssertNoServerFaultSince(mark, "slow bodies cut for room", refusalsExpected: true);
    }

    /// <summary>Real Kestrel with a 9 MiB budget and the longest stall timeout, so no holder is cut by the timeout.</summary>
    public sealed class Factory : HostileKestrelFactory
    {
        /// <summary>How long a body may go silent here when the budget has room.</summary>
        public static readonly TimeSpan StallTimeout = TimeSpan.FromSeconds(10);

        /// <summary>Creates the factory; the server starts on first use.</summary>
        public Factory()
            : base(new Dictionary<string, string?>
            {
                ["Signing:MaxInFlightBytes"] = (9 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
                ["Signing:BodyStallTimeout"] = "00:00:10",
            })
        {
        }
    }
}
