using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http.Memory;

namespace Signing.Http;

/// <summary>
/// Kestrel's limits for this service, in one place with their reasons. A signing request is a small set of headers
/// and one body that the endpoint buffers (in pooled memory) until it ends, so a client that sends slowly holds a
/// connection, a request and a growing buffer for as long as it likes unless Kestrel cuts it off.
/// </summary>
/// <remarks>
/// Only the body limit, the transport's read buffer and its receive blocks apply to both hosts
/// (<see cref="SigningServiceCollectionExtensions.AddSigning"/> sets them), and the Functions worker lifts the body
/// limit again (<see cref="ApplyBehindFunctionsHost"/>) so that its Kestrel drains what the endpoint refuses.
/// The rest protect a server that faces clients, SigningServer, which applies them with <see cref="ApplyClientFacing"/>.
/// Inside the Azure Functions worker Kestrel's only client is the Functions host, which forwards requests over pooled
/// loopback connections that it keeps longer than <see cref="KeepAliveTimeout"/>; there, slow and hostile clients meet
/// the platform's front end and its per-instance concurrency (infra/resources.bicep) instead, and memory is bounded by
/// the in-flight budget and the stall timeout, which both hosts enforce in the endpoint.
/// <para>
/// Measured with <c>loadtest/memory.sh --attack headers</c> (5,000 connections trickling header lines, reopened when
/// cut, beside an honest client signing 1.1 MB bodies) and <c>--attack bodies</c> (1,000 or 4,000 connections each
/// sending 1 MiB of a body at once); the figures are in the README's Reliability section. HTTP/2
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
    /// The most connections served at once (Kestrel's default is unlimited): 8,192, fewer on a small heap
    /// (<see cref="ConnectionsFor"/>). Each sign is CPU-bound, so two cores serve a few dozen at once; the cap is not for
    /// work but for connections held open without any, which is what a slow-client attack does. It was 1,024, and 1,100
    /// connections trickling their headers then held every slot, so ordinary clients were turned away at connect; with
    /// 8,192, 5,000 such connections leave room for ordinary clients. Connections past the cap are closed at once. More
    /// connections than that from one source are the front end's to refuse (per-address limits), as are idle
    /// connections by the thousand, since each is held for <see cref="KeepAliveTimeout"/>. The process's open-file
    /// limit must be above the cap (.NET raises its soft limit to the hard one at start-up).
    /// </summary>
    public const long MaxConcurrentConnections = 8192;

    /// <summary>The fewest connections <see cref="ConnectionsFor"/> allows, however small the heap: the old cap.</summary>
    public const long MinConcurrentConnections = 1024;

    /// <summary>
    /// The share of the process's memory that connections may hold before the endpoint reads them: 20%. The in-flight
    /// budget sets it aside (<see cref="InFlightBudgetSizing.KestrelReserveBytes"/>) from its own 40%. At 41 KiB a
    /// connection (<see cref="MaxReadBufferSize"/>, a receive block and <see cref="MaxRequestBufferSize"/>), a 1 GiB heap holds 5,115
    /// connections, more than the 5,000 at once that the header flood in the README holds.
    /// </summary>
    public const double ConnectionMemoryShare = 0.2;

    /// <summary>
    /// The connection cap for a process that may use <paramref name="availableBytes"/>: as many connections as
    /// <see cref="ConnectionMemoryShare"/> of it holds at what each may buffer, between
    /// <see cref="MinConcurrentConnections"/> and <see cref="MaxConcurrentConnections"/>; what each may buffer is what the
    /// reserve counts for one. So that what connections hold does not take the in-flight budget from a small instance,
    /// and a large one is not capped by memory.
    /// </summary>
    public static long ConnectionsFor(long availableBytes) =>
        Math.Clamp(
            (long)(availableBytes * ConnectionMemoryShare) / InFlightBudgetSizing.KestrelReserveBytes(1, MaxRequestBufferSize, MaxReadBufferSize),
            MinConcurrentConnections,
            MaxConcurrentConnections);

    /// <summary>
    /// What the socket transport reads from a connection ahead of the endpoint: a receive block and 1 KiB (17 KiB)
    /// rather than 1 MiB, on both hosts. A connection whose request has not been read yet (its headers being parsed, or
    /// its request waiting for a thread in a burst) holds this much of its body at most, and one receive block more
    /// (<see cref="ApplyReceiveBlocks"/>): the transport pauses once it holds this much, after the receive that got it
    /// there. Kestrel hands the endpoint all it has, so a larger buffer only lets a connection hold more before anything
    /// has charged it to the in-flight budget: with 1 MiB, the endpoint received a 1.08 MB body in reads of about 510
    /// KB. The kilobyte past a block is what keeps the next block coming while the endpoint works on the last: at exactly
    /// one block the transport paused after every receive, so each block waited for the endpoint and the endpoint for
    /// each block. At 3,000 widgets <c>transcode</c> then served a median of 0.84 of the wire floor's requests per second
    /// over 20 alternating rounds, and 0.89 over 32 at this setting, both servers serving more (docs/floor-history.md, "A
    /// block and a kilobyte ahead").
    /// </summary>
    public const long MaxReadBufferSize = ReceiveBlockPool.BlockSize + 1024;

    /// <summary>
    /// What Kestrel buffers per connection between connection middleware (TLS, if a deployment adds it to Kestrel) and
    /// the request: 8 KiB rather than 1 MiB. Over a plain socket the transport's own buffer,
    /// <see cref="MaxReadBufferSize"/>, is what bounds a connection; the reserve counts both, as an HTTPS endpoint would
    /// hold both. It must hold a whole request line and all headers (<see cref="MaxRequestLineSize"/>,
    /// <see cref="MaxRequestHeadersTotalSize"/>).
    /// </summary>
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
    /// Sets Kestrel's body limit to <paramref name="maxRequestBodyBytes"/>: Kestrel's default (30,000,000 bytes) is
    /// lower than ours, and past its limit Kestrel closes the connection rather than let the endpoint answer.
    /// </summary>
    public static void ApplyBodyLimit(KestrelServerLimits limits, long maxRequestBodyBytes)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.MaxRequestBodySize = maxRequestBodyBytes;
    }

    /// <summary>
    /// Lifts Kestrel's body limit in the Functions worker, so that Kestrel drains a body the endpoint refuses instead
    /// of closing the host's connection under it. The host may still be forwarding a body when the worker answers;
    /// when the endpoint answers 413 or 415 without reading all of it, Kestrel reads the rest and throws it away (for
    /// 5 s at most) so that the connection can serve the next request, but only up to its own limit: past that it
    /// closes the connection while the host is still sending, the host's forwarder fails the request, and the client
    /// gets a 5xx instead of the 413. Under the test host, an 8 MiB body over a 256 KiB limit failed to forward every time
    /// ("Broken pipe", 3,957,653 of 8,388,622 bytes sent). The endpoint still reads at most
    /// <see cref="SigningOptions.MaxRequestBodyBytes"/> of any body, and the host accepts none larger than its own
    /// limit (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>, 100 MiB by default), so what is drained is bounded there,
    /// over loopback, into no buffer of ours.
    /// </summary>
    /// <remarks>
    /// SigningServer keeps Kestrel's limit at the body limit (<see cref="ApplyBodyLimit"/>): its clients are anyone,
    /// and draining for them would let a client make it read 5 s of a body it refuses.
    /// </remarks>
    public static void ApplyBehindFunctionsHost(KestrelServerLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.MaxRequestBodySize = null;
    }

    /// <summary>
    /// Sets the transport's read buffer to <see cref="MaxReadBufferSize"/>, on both hosts, and has each connection
    /// receive straight into a block instead of first waiting for data with an empty receive.
    /// </summary>
    /// <remarks>
    /// Kestrel receives at most one block per call, and by default asks the socket whether data has come before
    /// each: in its 4 KiB blocks, two system calls per 4 KiB, 528 for a 1.08 MB body. Without the empty receive it made 265, and at 3,000
    /// widgets the wire floor served 1.10 times the requests per second at 0.83 of the processor time per request,
    /// <c>transcode</c> 1.16 times at 0.84 (medians of six alternating rounds; docs/floor-history.md, "One receive per
    /// block"). The price is a receive block held by every open connection, idle ones included (4 KiB then, 16 KiB since
    /// <see cref="ApplyReceiveBlocks"/>), which the reserve counts (<see cref="InFlightBudgetSizing.KestrelReserveBytes"/>):
    /// with 4 KiB blocks, 5,000 idle connections took the server's peak resident memory from 277 to 339 MiB, and 5,000
    /// trickling headers from 292 to 358 MiB.
    /// </remarks>
    public static void ApplyReadBuffer(SocketTransportOptions sockets)
    {
        ArgumentNullException.ThrowIfNull(sockets);
        sockets.MaxReadBufferSize = MaxReadBufferSize;
        sockets.WaitForDataBeforeAllocatingBuffer = false;
    }

    /// <summary>
    /// Has Kestrel take its memory from a <see cref="ReceiveBlockPool"/>, on both hosts: the socket transport then
    /// receives into 16 KiB blocks instead of 4 KiB ones, a quarter of the system calls for a body, and hands the
    /// endpoint its body in segments that size. Each connection holds a block while it waits for data
    /// (<see cref="ApplyReadBuffer"/>), which the reserve counts (<see cref="InFlightBudgetSizing.KestrelReserveBytes"/>).
    /// </summary>
    public static void ApplyReceiveBlocks(IServiceCollection services) =>
        services.AddSingleton<IMemoryPoolFactory<byte>, ReceiveBlockPoolFactory>();

    /// <summary>
    /// Sets every client-facing limit above, for a Kestrel that clients reach directly; the connection cap from the
    /// memory this process may use, read as the in-flight budget reads it (<see cref="InFlightBudgetSizing.Create"/>).
    /// </summary>
    public static void ApplyClientFacing(KestrelServerLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.MaxRequestBufferSize = MaxRequestBufferSize;
        limits.MaxRequestLineSize = MaxRequestLineSize;
        limits.MaxRequestHeadersTotalSize = MaxRequestHeadersTotalSize;
        limits.MinRequestBodyDataRate = new MinDataRate(MinRequestBodyBytesPerSecond, MinRequestBodyGracePeriod);
        limits.RequestHeadersTimeout = RequestHeadersTimeout;
        limits.KeepAliveTimeout = KeepAliveTimeout;
        limits.MaxConcurrentConnections = ConnectionsFor(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes);
    }
}
