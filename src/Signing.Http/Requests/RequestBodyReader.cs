using CommunityToolkit.HighPerformance.Buffers;
using Microsoft.AspNetCore.Http;

namespace Signing.Http.Requests;

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
    /// <exception cref="BadHttpRequestException">
    /// 413 once the body passes <paramref name="limit"/>; 400 when the connection fails under a read (a client that
    /// resets or drops it mid-upload), so that a client going away is answered as a client fault, not logged as an
    /// unhandled exception.
    /// </exception>
    public static async Task<ArrayPoolBufferWriter<byte>> ReadAsync(Stream body, BufferPool pool, long limit, CancellationToken cancellationToken)
    {
        var buffer = pool.RentWriter();
        try
        {
            while (true)
            {
                int read;
                try
                {
                    read = await body.ReadAsync(buffer.GetMemory(ReadSize), cancellationToken);
                }
                catch (IOException e) when (e is not BadHttpRequestException)
                {
                    // The transport failed under the read: the client reset or dropped the connection mid-body. That
                    // is the client's fault, as a body cut short by a clean close is (Kestrel's 400), not the server's.
                    // Kestrel's own refusals (a body past its limit, broken framing) are IOExceptions too, and pass as they are.
                    throw new BadHttpRequestException("The connection closed before the body was complete.", StatusCodes.Status400BadRequest, e);
                }

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
