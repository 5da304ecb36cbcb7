using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Access;
using Signing.Http.Requests;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary>
/// The limit per client address (<c>Signing:MaxConcurrentRequestsPerClient</c>): one address that holds as many
/// requests as it may is answered 429 at once for one more, before its body is read, while another address is signed
/// as usual; once its requests end, the address is served again. The attackers connect from 127.0.0.2, the honest
/// client from 127.0.0.1. Behind a proxy, with ASP.NET Core's forwarded headers on, the client is the address the
/// proxy forwarded.
/// </summary>
public sealed class ClientLimitTests(ClientLimitTests.Factory factory, ClientLimitTests.BehindProxyFactory behindProxy)
    : IClassFixture<ClientLimitTests.Factory>, IClassFixture<ClientLimitTests.BehindProxyFactory>
{
    private const int Most = 2;

    private static readonly IPAddress Attacker = IPAddress.Parse("127.0.0.2");

    private static readonly byte[] Envelope = Bodies.Canonical(widgetCount: 30, seed: 31);

    [Fact]
    public async Task An_address_with_all_its_requests_in_flight_gets_429_at_once_and_another_address_is_signed()
    {
        using var client = factory.CreateStreamingClient();
        var mark = factory.Mark();
        var head = RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=transcode", $"Content-Length: {Envelope.Length.ToString(CultureInfo.InvariantCulture)}\r\n");

        var holders = new List<RawHttpConnection>();
        try
        {
            // Two requests from one address, each with half its body sent: both in flight, held by their reads.
            for (var i = 0; i < Most; i++)
            {
                var holder = await RawHttpConnection.OpenAsync(client.BaseAddress!, Attacker);
                holders.Add(holder);
                await holder.SendAsync(head);
                await holder.SendAsync(Envelope.AsMemory(0, Envelope.Length / 2));
            }

            var reading = factory.Services.GetRequiredService<SlowBodies>();
            Assert.NotNull(await BoundedWait.UntilAsync(() => reading.Count == Most, TimeSpan.FromSeconds(10)));

            // A third from the same address: refused without its body being read, and the connection closed.
            using (var third = await RawHttpConnection.OpenAsync(client.BaseAddress!, Attacker))
            {
                var asked = System.Diagnostics.Stopwatch.StartNew();
                await third.SendAsync(head);
                var answer = await third.ReadToEndAsync(TimeSpan.FromSeconds(10));
                Assert.True(asked.Elapsed < TimeSpan.FromSeconds(3), $"answered and closed after {asked.Elapsed}");
                Assert.StartsWith("HTTP/1.1 429", answer, StringComparison.Ordinal);
                Assert.Contains("Retry-After: 1", answer, StringComparison.Ordinal);
                Assert.Contains("Connection: close", answer, StringComparison.OrdinalIgnoreCase);
                Assert.Contains($"At most {Most} requests from one client address are served at once", answer, StringComparison.Ordinal);
            }

            // Another address is not limited by the first one's requests.
            using (var honest = await client.PostAsync("/api/sign?strategy=transcode", Bodies.Json(Envelope)))
            {
                Assert.Equal(HttpStatusCode.OK, honest.StatusCode);
                Assert.Equal(TestKey.SignatureOf(Envelope), (await honest.Content.ReadFromJsonAsync<SignResponse>())!.Signature);
            }

            // The held requests finish, and are signed: the limit refuses only what comes over it.
            foreach (var holder in holders)
            {
                await holder.SendAsync(Envelope.AsMemory(Envelope.Length / 2));
            }

            var answers = await Task.WhenAll(holders.Select(h => h.ReadToEndAsync(TimeSpan.FromSeconds(10))));
            Assert.All(answers, answer => Assert.StartsWith("HTTP/1.1 200", answer, StringComparison.Ordinal));
        }
        finally
        {
            foreach (var holder in holders)
            {
                holder.Dispose();
            }
        }

        // With its requests ended, the address is served again.
        using (var again = await RawHttpConnection.OpenAsync(client.BaseAddress!, Attacker))
        {
            await again.SendAsync(head);
            await again.SendAsync(Envelope);
            Assert.StartsWith("HTTP/1.1 200", await again.ReadToEndAsync(TimeSpan.FromSeconds(10)), StringComparison.Ordinal);
        }

        factory.AssertNoServerFaultSince(mark, "requests over the limit per client address");
    }

    [Fact]
    public async Task Behind_a_proxy_the_client_is_the_address_the_proxy_forwarded()
    {
        using var client = behindProxy.CreateStreamingClient();
        var mark = behindProxy.Mark();
        byte[] Head(string forwardedFor) => RawHttpConnection.PostHead(
            client.BaseAddress!,
            "/api/sign?strategy=transcode",
            $"Content-Length: {Envelope.Length.ToString(CultureInfo.InvariantCulture)}\r\nX-Forwarded-For: {forwardedFor}\r\n");

        // Every connection comes from the proxy's address, 127.0.0.1; the first forwarded client holds its one request.
        using var holder = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        await holder.SendAsync(Head("203.0.113.5"));
        await holder.SendAsync(Envelope.AsMemory(0, Envelope.Length / 2));
        var reading = behindProxy.Services.GetRequiredService<SlowBodies>();
        Assert.NotNull(await BoundedWait.UntilAsync(() => reading.Count == 1, TimeSpan.FromSeconds(10)));

        // A client the proxy forwards whose value comes after one the client sent itself: the proxy's own entry, the
        // last, is the one taken, so the same client is refused however it names itself.
        using (var same = await RawHttpConnection.OpenAsync(client.BaseAddress!))
        {
            await same.SendAsync(Head("198.51.100.9, 203.0.113.5"));
            Assert.StartsWith("HTTP/1.1 429", await same.ReadToEndAsync(TimeSpan.FromSeconds(10)), StringComparison.Ordinal);
        }

        using (var other = await RawHttpConnection.OpenAsync(client.BaseAddress!))
        {
            await other.SendAsync(Head("198.51.100.7"));
            await other.SendAsync(Envelope);
            Assert.StartsWith("HTTP/1.1 200", await other.ReadToEndAsync(TimeSpan.FromSeconds(10)), StringComparison.Ordinal);
        }

        await holder.SendAsync(Envelope.AsMemory(Envelope.Length / 2));
        Assert.StartsWith("HTTP/1.1 200", await holder.ReadToEndAsync(TimeSpan.FromSeconds(10)), StringComparison.Ordinal);
        behindProxy.AssertNoServerFaultSince(mark, "forwarded clients over the limit");
    }

    [Theory]
    [InlineData("192.0.2.7", "192.0.2.7")]
    [InlineData("::ffff:192.0.2.7", "192.0.2.7")]
    [InlineData("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::")]
    [InlineData("2001:db8:1:2::1", "2001:db8:1:2::")]
    [InlineData("::1", "::")]
    public void A_client_is_its_IPv4_address_or_its_IPv6_slash_64(string address, string client)
    {
        Assert.Equal(IPAddress.Parse(client), ClientLimits.ClientOf(IPAddress.Parse(address)));
    }

    [Fact]
    public void The_limits_need_an_app_to_be_added_to()
    {
        Assert.Throws<ArgumentNullException>("app", () => ClientLimits.UseSigningClientLimits(null!));
    }

    [Fact]
    public void A_request_without_an_address_is_no_client_of_its_own()
    {
        Assert.Null(ClientLimits.ClientOf(null));
    }

    /// <summary>Real Kestrel with the limit per client address at <see cref="Most"/> and the longest stall timeout.</summary>
    public sealed class Factory : HostileKestrelFactory
    {
        /// <summary>Creates the factory; the server starts on first use.</summary>
        public Factory()
            : base(new Dictionary<string, string?>
            {
                ["Signing:MaxConcurrentRequestsPerClient"] = Most.ToString(CultureInfo.InvariantCulture),
                ["Signing:MaxRequestBodyBytes"] = Limit.ToString(CultureInfo.InvariantCulture),

                // The held requests wait for the rest of their bodies throughout.
                ["Signing:BodyStallTimeout"] = "00:00:10",
            })
        {
        }
    }

    /// <summary>
    /// The same, one request a client, with ASP.NET Core's forwarded headers on (<c>ASPNETCORE_FORWARDEDHEADERS_ENABLED</c>
    /// as a setting), as behind a proxy that appends the client's address to <c>X-Forwarded-For</c>.
    /// </summary>
    public sealed class BehindProxyFactory : HostileKestrelFactory
    {
        /// <summary>Creates the factory; the server starts on first use.</summary>
        public BehindProxyFactory()
            : base(new Dictionary<string, string?>
            {
                ["Signing:MaxConcurrentRequestsPerClient"] = "1",
                ["Signing:MaxRequestBodyBytes"] = Limit.ToString(CultureInfo.InvariantCulture),
                ["Signing:BodyStallTimeout"] = "00:00:10",
                ["ForwardedHeaders_Enabled"] = "true",
            })
        {
        }
    }
}
