using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;

namespace Signing.Http.Memory;

/// <summary>
/// The default of <c>Signing:MaxInFlightBytes</c>, derived from the memory the runtime says the process may use, so
/// that the same build is safe on a 2 GB Flex Consumption instance, in a container and on a large server.
/// </summary>
public static class InFlightBudgetSizing
{
    /// <summary>
    /// The share of the process's memory that requests in flight may hold: 40%. The rest is the runtime's and the
    /// host's: the heap's garbage between collections (a request's allocations outlive it until the next collection),
    /// the code and baseline heap, and, on Flex Consumption, the Functions host process, which shares the instance's
    /// 2,048 MB with this worker and takes a few hundred MB of it.
    /// </summary>
    public const double InFlightShare = 0.4;

    /// <summary>Connections counted when the server sets no cap: the Functions worker's, whose only client is the host's small connection pool.</summary>
    public const long UncappedConnections = 100;

    /// <summary>
    /// <see cref="InFlightShare"/> of <paramref name="availableBytes"/> (what <see cref="GC.GetGCMemoryInfo()"/> reports as
    /// <see cref="GCMemoryInfo.TotalAvailableMemoryBytes"/>: the machine's memory, a container's limit, or
    /// <c>DOTNET_GCHeapHardLimit</c>), less what Kestrel may buffer for connections before the endpoint runs.
    /// </summary>
    public static long DefaultLimitBytes(long availableBytes, long? maxConnections, long? maxRequestBufferSize, long? maxReadBufferSize) =>
        (long)(availableBytes * InFlightShare) - KestrelReserveBytes(maxConnections, maxRequestBufferSize, maxReadBufferSize);

    /// <summary>
    /// What Kestrel can hold for connections before any endpoint sees them: for every connection it admits, what the
    /// socket transport reads ahead (<c>MaxReadBufferSize</c>) and the receive block that takes it past that
    /// (<see cref="ReceiveBlockPool.BlockSize"/>), and what a connection middleware such as TLS buffers after it
    /// (<c>MaxRequestBufferSize</c>), each 1 MiB unless set. Kestrel's memory pool takes them all from the heap.
    /// </summary>
    public static long KestrelReserveBytes(long? maxConnections, long? maxRequestBufferSize, long? maxReadBufferSize) =>
        (maxConnections ?? UncappedConnections) * ((maxRequestBufferSize ?? 1024 * 1024) + (maxReadBufferSize ?? 1024 * 1024) + ReceiveBlockPool.BlockSize);

    /// <summary>
    /// The budget for <paramref name="options"/>: the configured limit, or the default for this process. Whether the
    /// budget can hold a maximum-size body is each strategy's own matter (<see cref="StrategyBodyLimits"/>): a small
    /// instance gives the costly strategies a smaller body limit instead of refusing to start.
    /// </summary>
    /// <exception cref="OptionsValidationException">The default is below <see cref="SigningOptions.MinMaxInFlightBytes"/>.</exception>
    public static InFlightBudget Create(SigningOptions options, KestrelServerLimits kestrel, SocketTransportOptions sockets)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(kestrel);
        ArgumentNullException.ThrowIfNull(sockets);

        if (options.MaxInFlightBytes is { } configured)
        {
            return new InFlightBudget(configured);
        }

        var available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        var limit = DefaultLimitBytes(available, kestrel.MaxConcurrentConnections, kestrel.MaxRequestBufferSize, sockets.MaxReadBufferSize);
        if (limit < SigningOptions.MinMaxInFlightBytes)
        {
            // A process capped this small (DOTNET_GCHeapHardLimit, a container's limit) has no room left for requests
            // once Kestrel's connections are set aside: say so, rather than fail on a budget of less than nothing.
            throw new OptionsValidationException(SigningOptions.SectionName, typeof(SigningOptions),
            [
                $"{SigningOptions.SectionName}:MaxInFlightBytes is not set, and its default, {InFlightShare * 100:0}% of the {available / (1024 * 1024)} MiB " +
                $"this process may use less {KestrelReserveBytes(kestrel.MaxConcurrentConnections, kestrel.MaxRequestBufferSize, sockets.MaxReadBufferSize) / (1024 * 1024)} MiB " +
                "that Kestrel may hold for connections, is below 1 MiB. Give the process more memory, or set it.",
            ]);
        }

        return new InFlightBudget(limit);
    }
}
