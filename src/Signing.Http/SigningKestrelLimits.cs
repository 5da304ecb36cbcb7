using Microsoft.AspNetCore.Server.Kestrel.Core;
using Signing.Http.Memory;

namespace Signing.Http;

/// <summary>
/// Kestrel's limits for this service, in one place with their reasons. A signing request is a small set of headers
/// and one body that the endpoint buffers (in pooled memory) until it ends, so a client that sends slowly holds a
/// connection, a request and a growing buffer for as long as it likes unless Kestrel cuts it off.
/// </summary>
/// <remarks>
/// Only the body limit applies to both hosts (<see cref="SigningServiceCollectionExtensions.AddSigning"/> sets it).
/// The rest protect a server that faces clients, SigningServer, which applies them with <see cref="ApplyClientFacing"/>.
/// Inside the Azure Functions worker Kestrel's only client is the Functions host, which forwards requests over pooled
/// loopback connections that it keeps longer than <see cref="KeepAliveTimeout"/>; there, slow and hostile clients meet
/// the platform's front end and its per-instance concurrency (infra/resources.bicep) instead, and memory is bounded by
/// the in-flight budget and the stall timeout, which both hosts enforce in the endpoint.
/// </remarks>
public static class SigningKestrelLimits
{
    /// <summary>
    /// The slowest a body may arrive once <see cref="MinRequestBodyGracePeriod"/> has passed: 16 KiB/s. Kestrel's
    /// default of 240 B/s would let one client take 39 hours over a 32 MiB body while holding its buffer; at 16 KiB/s
    /// the write-up's 1 MB envelope still has a minute, which any sender on a working network beats by far.
    /// </summary>
    public const double MinRequestBodyBytesPerSecond = 16 * 1024;

    /// <summary>How long a body may start slowly (connection set-up, TCP slow start) before its rate is enforced.</summary>
    public static readonly TimeSpan MinRequestBodyGracePeriod = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long a client has to send all of a request's headers: 10 s rather than Kestrel's 30 s. A sign request's
    /// headers are a few hundred bytes, and a client that trickles them (Slowloris) holds a connection while sending
    /// nothing the server can act on.
    /// </summary>
    public static readonly TimeSpan RequestHeadersTimeout = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long an idle keep-alive connection is kept: 30 s rather than Kestrel's 130 s, so idle connections give
    /// back their slot under <see cref="MaxConcurrentConnections"/> sooner. Load generators reuse connections
    /// continuously and never sit idle that long.
    /// </summary>
    public static readonly TimeSpan KeepAliveTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The most connections served at once (Kestrel's default is unlimited): 1,024, far above what two cores sign
    /// concurrently (each sign is CPU-bound), so it only bites when connections are held open without work, which is
    /// what a slow-client attack does. Connections past it are closed at once instead of queuing behind them.
    /// </summary>
    public const long MaxConcurrentConnections = 1024;

    /// <summary>
    /// What Kestrel buffers per connection before the endpoint reads it: 64 KiB rather than 1 MiB. The endpoint reads
    /// 16 KiB at a time into pooled blocks, so more buffering only holds memory per connection that the in-flight
    /// budget would have to set aside (<see cref="InFlightBudgetSizing.KestrelReserveBytes"/>).
    /// </summary>
    public const long MaxRequestBufferSize = 64 * 1024;

    /// <summary>
    /// Sets Kestrel's body limit to <paramref name="maxRequestBodyBytes"/>, on both hosts: Kestrel's default
    /// (30,000,000 bytes) is lower than ours, and the Functions host turns its rejection into a 500.
    /// </summary>
    public static void ApplyBodyLimit(KestrelServerLimits limits, long maxRequestBodyBytes)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.MaxRequestBodySize = maxRequestBodyBytes;
    }

    /// <summary>Sets every client-facing limit above, for a Kestrel that clients reach directly.</summary>
    public static void ApplyClientFacing(KestrelServerLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.MaxRequestBufferSize = MaxRequestBufferSize;
        limits.MinRequestBodyDataRate = new MinDataRate(MinRequestBodyBytesPerSecond, MinRequestBodyGracePeriod);
        limits.RequestHeadersTimeout = RequestHeadersTimeout;
        limits.KeepAliveTimeout = KeepAliveTimeout;
        limits.MaxConcurrentConnections = MaxConcurrentConnections;
    }
}
