using CommunityToolkit.HighPerformance.Buffers;
using Microsoft.AspNetCore.Http;

namespace Signing.Http;

/// <summary>
/// Drains a request body into pooled memory, asynchronously and within a limit.
/// </summary>
/// <remarks>
/// Newtonsoft.Json only reads synchronously, and synchronous reads of a request body block a thread-pool thread per
/// request (Kestrel forbids them by default for that reason). So the body is read with async I/O into a pooled
/// buffer and parsed from there: one copy of the raw bytes, never a string, and the buffer goes back to the pool.
/// </remarks>
internal static class RequestBodyReader
{
    private const int ReadSize = 16 * 1024;

    /// <summary>Reads all of <paramref name="body"/>; the caller disposes the result.</summary>
    /// <exception cref="BadHttpRequestException">413 once the body passes <paramref name="limit"/>.</exception>
    public static async Task<ArrayPoolBufferWriter<byte>> ReadAsync(Stream body, BufferPool pool, long limit, CancellationToken cancellationToken)
    {
        var buffer = pool.RentWriter();
        try
        {
            while (true)
            {
                var read = await body.ReadAsync(buffer.GetMemory(ReadSize), cancellationToken);
                if (read == 0)
                {
                    return buffer;
                }

                buffer.Advance(read);
                if (buffer.WrittenCount > limit)
                {
                    throw new BadHttpRequestException($"The body is larger than the limit of {limit} bytes.", StatusCodes.Status413PayloadTooLarge);
                }
            }
        }
        catch
        {
            buffer.Dispose();
            throw;
        }
    }
}
