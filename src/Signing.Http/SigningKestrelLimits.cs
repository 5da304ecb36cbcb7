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
/// <para>
/// Measured with <c>loadtest/memory.sh --attack headers</c> (5,000 connections trickling header lines, reopened when
/// cut, beside an honest client signing 1.1 MB bodies); the figures are in the README's Configuration section. HTTP/2
/// limits are left at Kestrel's defaults: SigningServer listens on plain HTTP, where Kestrel speaks HTTP/1.1 only, and
/// a front end that terminates TLS speaks HTTP/1.1 or HTTP/2 to clients on its own terms.
/// </para>
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
    /// How long a client has, from the first byte of a request, to send all of its headers: 5 s rather than Kestrel's
    /// 30 s. A sign request's headers are a few hundred bytes, one TCP segment; 5 s leaves room for two retransmissions
    /// of it (TCP's first retransmission waits 1 s, the second 2 s more). A client that trickles its headers (Slowloris)
    /// holds a connection while sending nothing the server can act on, and is cut off with 408 once this has passed.
    /// Kestrel checks it once a second, so it is cut 5 to 6 s after it began.
    /// </summary>
    public static readonly TimeSpan RequestHeadersTimeout = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long an idle keep-alive connection is kept, and a new one that has sent nothing yet: 30 s rather than
    /// Kestrel's 130 s, so that idle connections give back their slot under <see cref="MaxConcurrentConnections"/>
    /// sooner. Not shorter: a front end that pools connections to this server must not find them closed under it more
    /// often than its own idle timeout (commonly 60 s or more) expects, and load generators never sit idle this long.
    /// </summary>
    public static readonly TimeSpan KeepAliveTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The most connections served at once (Kestrel's default is unlimited): 8,192. Each sign is CPU-bound, so two
    /// cores serve a few dozen at once; the cap is not for work but for connections held open without any, which is
    /// what a slow-client attack does. It was 1,024, and 1,100 connections trickling their headers then held every slot,
    /// so ordinary clients were turned away at connect. With 8,192, 5,000 such connections leave room for ordinary
    /// clients, and what each can hold is bounded by <see cref="MaxRequestBufferSize"/>, so the cap times that buffer
    /// (64 MiB), which the in-flight budget sets aside (<see cref="InFlightBudgetSizing.KestrelReserveBytes"/>), is what
    /// it was before. Connections past the cap are closed at once. More connections than that from one source are the
    /// front end's to refuse (per-address limits), as are idle connections by the thousand, since each is held for
    /// <see cref="KeepAliveTimeout"/>. The process's open-file limit must be above the cap (.NET raises its soft limit
    /// to the hard one at start-up).
    /// </summary>
    public const long MaxConcurrentConnections = 8192;

    /// <summary>
    /// What Kestrel buffers per connection before the endpoint reads it: 8 KiB rather than 1 MiB, so that a connection
    /// that sends headers or a body and is not read yet holds 8 KiB at most, and <see cref="MaxConcurrentConnections"/>
    /// of them 64 MiB. The endpoint reads the body as it arrives, so a larger buffer only holds memory per connection
    /// that the in-flight budget would have to set aside. It must hold a whole request line and all headers
    /// (<see cref="MaxRequestLineSize"/>, <see cref="MaxRequestHeadersTotalSize"/>).
    /// </summary>
    /// <remarks>
    /// Not yet true over a plain socket: Kestrel applies this to pipes that connection middleware adapts, and the socket
    /// transport buffers up to its own <c>SocketTransportOptions.MaxReadBufferSize</c>, 1 MiB unless set (the endpoint
    /// was measured receiving about 510 KB per read). Bounding that at 64 KiB cost no throughput; counting it in the
    /// reserve at this cap does not fit a small instance yet (docs/load-test.md, "The walk without calls").
    /// </remarks>
    public const long MaxRequestBufferSize = 8 * 1024;

    /// <summary>
    /// The longest request line: 4 KiB rather than 8 KiB. Ours is <c>POST /api/sign?strategy=…&amp;code=…</c>, under
    /// 200 bytes; a longer one gets 414.
    /// </summary>
    public const int MaxRequestLineSize = 4 * 1024;

    /// <summary>
    /// The most header bytes a request may send: 8 KiB rather than 32 KiB. A sign request sends a few hundred; a front
    /// end adds forwarding and tracing headers, a kilobyte or two. More gets 431, and a trickling client cannot make
    /// its connection hold more than this while its headers are incomplete.
    /// </summary>
    public const int MaxRequestHeadersTotalSize = 8 * 1024;

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
        limits.MaxRequestLineSize = MaxRequestLineSize;
        limits.MaxRequestHeadersTotalSize = MaxRequestHeadersTotalSize;
        limits.MinRequestBodyDataRate = new MinDataRate(MinRequestBodyBytesPerSecond, MinRequestBodyGracePeriod);
        limits.RequestHeadersTimeout = RequestHeadersTimeout;
        limits.KeepAliveTimeout = KeepAliveTimeout;
        limits.MaxConcurrentConnections = MaxConcurrentConnections;
    }
}
