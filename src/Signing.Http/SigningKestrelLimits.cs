using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Signing.Http;

/// <summary>
/// Kestrel's limits for this service, in one place with their reasons. A signing request is a small set of headers
/// and one body that the endpoint buffers (in pooled memory) until it ends, so a client that sends slowly holds a
/// connection, a request and a growing buffer for as long as it likes unless Kestrel cuts it off.
/// </summary>
/// <remarks>
/// Both hosts get these through <see cref="SigningServiceCollectionExtensions.AddSigning"/>; on Azure Functions they
/// apply to the Kestrel inside the worker, whose only client is the Functions host.
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

    /// <summary>Sets every limit above, and the body size limit to <paramref name="maxRequestBodyBytes"/>.</summary>
    public static void Apply(KestrelServerLimits limits, long maxRequestBodyBytes)
    {
        ArgumentNullException.ThrowIfNull(limits);

        // Kestrel's default (30,000,000 bytes) is lower than ours, and the Functions host turns its rejection into a 500.
        limits.MaxRequestBodySize = maxRequestBodyBytes;
        limits.MinRequestBodyDataRate = new MinDataRate(MinRequestBodyBytesPerSecond, MinRequestBodyGracePeriod);
        limits.RequestHeadersTimeout = RequestHeadersTimeout;
        limits.KeepAliveTimeout = KeepAliveTimeout;
        limits.MaxConcurrentConnections = MaxConcurrentConnections;
    }
}
