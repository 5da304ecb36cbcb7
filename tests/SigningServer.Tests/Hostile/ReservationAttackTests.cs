using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// The reservation attack of issue 22: many connections send headers declaring large <c>string</c> bodies and then
/// nothing. Declaring costs a client nothing here, so ordinary 1 MB signs made while they wait are all served; the
/// attackers are still in the endpoint, waiting, until each is cut off with 408 by Kestrel's minimum data rate, gets the
/// whole answer, and sees its connection closed at once.
/// </summary>
public sealed class ReservationAttackTests(ReservationAttackTests.Factory factory) : IClassFixture<ReservationAttackTests.Factory>
{
    private const int Attackers = 50;

    // Signs made while the attackers wait: few enough to end well within Kestrel's grace on a busy machine (twenty took
    // 5.4 s of its 5 with three other busy processes on two cores), after which it may cut the attackers off.
    private const int Signs = 8;

    // 1 MiB declared with string is charged about 9.2 MB up front by a server that reserves: seven would fill the budget.
    private const int Declared = 1024 * 1024;

    private static readonly byte[] Envelope = Bodies.Canonical(widgetCount: 3000, seed: 22);

    [Fact]
    public async Task Idle_connections_declaring_large_bodies_do_not_lock_out_ordinary_signs()
    {
        using var client = factory.CreateStreamingClient();
        var mark = factory.Mark();

        // One sign before the attack, so that the timed signs below do not pay for compiling and pooling on a new server.
        using (var first = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Envelope)))
        {
            Assert.Equal(HttpStatusCode.OK, first.StatusCode);
        }

        var signsStarted = factory.StartedCount("/api/sign");
        var attackers = new List<RawHttpConnection>();
        try
        {
            for (var i = 0; i < Attackers; i++)
            {
                var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
                attackers.Add(connection);
                await connection.SendAsync(RawHttpConnection.PostHead(
                    client.BaseAddress!, "/api/sign?strategy=string", $"Content-Length: {Declared.ToString(CultureInfo.InvariantCulture)}\r\n"));
            }

            var attacked = System.Diagnostics.Stopwatch.StartNew();
            var allIn = await BoundedWait.UntilAsync(() => factory.StartedCount("/api/sign") >= signsStarted + Attackers, TimeSpan.FromSeconds(10));
            Assert.True(allIn is not null, "not every attacker's request reached the endpoint");
            for (var i = 0; i < Signs; i++)
            {
                using var response = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Envelope));
                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
                Assert.Equal(TestKey.SignatureOf(Envelope), (await response.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
            }

            // The signs were made while every attacker still waited: none had been answered, or cut off, by the time
            // the last was signed.
            Assert.All(attackers, attacker => Assert.False(attacker.HasAnswered, $"an attacker was answered before the signs ended, after {attacked.Elapsed}"));
            var answers = await Task.WhenAll(attackers.Select(a => a.ReadToEndAsync(Factory.StallTimeout * 2)));
            Assert.All(answers, answer =>
            {
                Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
                Assert.Contains("Body stalled", answer, StringComparison.Ordinal);
            });

            // Kestrel's minimum data rate cut them off, and Kestrel closed each connection as soon as its answer had
            // gone: not after 5 s of draining, which would end past the endpoint's own stall timeout.
            Assert.True(attacked.Elapsed < Factory.StallTimeout, $"the attackers' connections closed after {attacked.Elapsed}");
        }
        finally
        {
            foreach (var attacker in attackers)
            {
                attacker.Dispose();
            }
        }

        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes == 0 && factory.Pool.InUseBytes == 0, TimeSpan.FromSeconds(10)));
        factory.AssertNoServerFaultSince(mark, "reservation attack");
    }

    /// <summary>Real Kestrel with a 64 MiB budget and the longest stall timeout, so the attackers wait through the signs.</summary>
    public sealed class Factory : HostileKestrelFactory
    {
        /// <summary>How long an attacker may wait in silence.</summary>
        public static readonly TimeSpan StallTimeout = TimeSpan.FromSeconds(10);

        /// <summary>Creates the factory; the server starts on first use.</summary>
        public Factory()
            : base(new Dictionary<string, string?>
            {
                ["Signing:MaxInFlightBytes"] = (64 * 1024 * 1024).ToString(CultureInfo.InvariantCulture),
                ["Signing:BodyStallTimeout"] = "00:00:10",
            })
        {
        }
    }
}
