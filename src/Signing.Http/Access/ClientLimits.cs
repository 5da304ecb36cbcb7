using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Threading.RateLimiting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.RateLimiting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing.Http.Requests;

namespace Signing.Http.Access;

/// <summary>
/// SigningServer's limit per client address (<see cref="SigningOptions.MaxConcurrentRequestsPerClient"/>), made with
/// ASP.NET Core's rate-limiting middleware: one concurrency limiter per address, no queue. The in-flight budget is
/// shared first come, first served, so one address with many connections could otherwise take all of it; with this, an
/// address takes at most its share of requests, and the rest of the budget stays for everyone else.
/// </summary>
/// <remarks>
/// Only for a host that faces clients itself: the Functions app does not call these, as its only client is its host.
/// A request without an address (a Unix socket, an in-memory test server) is not limited.
/// </remarks>
public static class ClientLimits
{
    // An IPv6 client usually holds a whole /64, and could otherwise open each connection from an address of its own.
    private const int IPv6ClientPrefixBytes = 8;

    /// <summary>Registers the limiter, configured from <see cref="SigningOptions"/> once they have been checked.</summary>
    public static IServiceCollection AddSigningClientLimits(this IServiceCollection services)
    {
        services.AddRateLimiter(_ => { });
        services.AddOptions<RateLimiterOptions>().Configure<IOptions<SigningOptions>>((limiter, signing) =>
        {
            if (signing.Value.MaxConcurrentRequestsPerClient is not { } most)
            {
                return;
            }

            limiter.GlobalLimiter = PartitionedRateLimiter.Create<HttpContext, IPAddress>(context =>
                ClientOf(context.Connection.RemoteIpAddress) is { } client
                    ? RateLimitPartition.GetConcurrencyLimiter(client, _ => new ConcurrencyLimiterOptions { PermitLimit = most, QueueLimit = 0 })
                    : RateLimitPartition.GetNoLimiter(IPAddress.None));
            limiter.RejectionStatusCode = StatusCodes.Status429TooManyRequests;
            limiter.OnRejected = (rejected, _) => Reject(rejected.HttpContext, most);
        });
        return services;
    }

    /// <summary>
    /// Limits every request from here on when a limit is configured; otherwise adds nothing, so that a request costs
    /// what it did without it. Decided from the setting as written, before it is checked: a value that does not parse
    /// stops the app at start-up (<see cref="SigningOptionsValidator"/>), middleware or not.
    /// </summary>
    public static WebApplication UseSigningClientLimits(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        if (!string.IsNullOrEmpty(app.Configuration[SigningOptions.SectionName + ":" + nameof(SigningOptions.MaxConcurrentRequestsPerClient)]))
        {
            app.UseRateLimiter();
        }

        return app;
    }

    /// <summary>
    /// The client an address stands for: an IPv4 address (one mapped into IPv6 too, as dual-mode sockets report them)
    /// as it is, an IPv6 address by its /64; null for none.
    /// </summary>
    internal static IPAddress? ClientOf(IPAddress? address)
    {
        if (address is null)
        {
            return null;
        }

        if (address.IsIPv4MappedToIPv6)
        {
            return address.MapToIPv4();
        }

        if (address.AddressFamily != AddressFamily.InterNetworkV6)
        {
            return address;
        }

        var bytes = address.GetAddressBytes();
        Array.Clear(bytes, IPv6ClientPrefixBytes, bytes.Length - IPv6ClientPrefixBytes);
        return new IPAddress(bytes);
    }

    // The body is not read: the connection closes after the answer, rather than Kestrel draining up to the body limit
    // (and waiting up to 5 s for it) for a client that already has more requests in flight than it may.
    private static ValueTask Reject(HttpContext context, int most)
    {
        context.Response.Headers.RetryAfter = EnvelopeRequestReader.RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        EnvelopeRequestReader.CloseAfterResponse(context);
        return new ValueTask(SignProblems.TooManyFromClient(most, EnvelopeRequestReader.RetryAfterSeconds).ExecuteAsync(context));
    }
}
