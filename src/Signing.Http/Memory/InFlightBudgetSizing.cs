using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;
using Microsoft.IO;

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
    public static long DefaultLimitBytes(long availableBytes, long? maxConnections, long? maxRequestBufferSize) =>
        (long)(availableBytes * InFlightShare) - KestrelReserveBytes(maxConnections, maxRequestBufferSize);

    /// <summary>
    /// What Kestrel can hold for connections before any endpoint sees them: its per-connection request buffer
    /// (<c>MaxRequestBufferSize</c>, 1 MiB unless set) for every connection it admits.
    /// </summary>
    public static long KestrelReserveBytes(long? maxConnections, long? maxRequestBufferSize) =>
        (maxConnections ?? UncappedConnections) * (maxRequestBufferSize ?? 1024 * 1024);

    /// <summary>
    /// The budget for <paramref name="options"/>: the configured limit, or the default for this process. Refuses, as an
    /// invalid setting, a limit that cannot hold one maximum-size request with the costliest of
    /// <paramref name="strategies"/>: such a request would be refused forever, and its 503 would promise a retry in vain.
    /// </summary>
    /// <exception cref="OptionsValidationException">The limit is too small for the body limit.</exception>
    public static InFlightBudget Create(SigningOptions options, KestrelServerLimits kestrel, SigningStrategies strategies)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(kestrel);
        ArgumentNullException.ThrowIfNull(strategies);

        var limit = options.MaxInFlightBytes ?? DefaultLimitBytes(
            GC.GetGCMemoryInfo().TotalAvailableMemoryBytes, kestrel.MaxConcurrentConnections, kestrel.MaxRequestBufferSize);
        var costliest = strategies.Names.Select(name => strategies[name]).MaxBy(s => s.HeldBytesPerDocumentByte)!;
        var largest = RequestMemory.For(costliest, options.MaxRequestBodyBytes, options.RecyclableMemoryStream.BlockSize);
        if (limit < largest)
        {
            var source = options.MaxInFlightBytes is null
                ? $"derived from the {GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / (1024 * 1024)} MiB the runtime may use"
                : "as configured";
            throw new OptionsValidationException(SigningOptions.SectionName, typeof(SigningOptions),
            [
                $"{SigningOptions.SectionName}:MaxInFlightBytes ({limit} bytes, {source}) cannot hold one request of {SigningOptions.SectionName}:MaxRequestBodyBytes " +
                $"({options.MaxRequestBodyBytes} bytes) with strategy '{costliest.Name}', which is charged {largest} bytes. Raise the first or lower the second.",
            ]);
        }

        return new InFlightBudget(limit);
    }
}
