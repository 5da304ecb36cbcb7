using System.Buffers;
using System.IO.Compression;
using Microsoft.AspNetCore.Http;
using Microsoft.IO;
using Signing.Http.Memory;

namespace Signing.Http.Requests;

/// <summary>
/// Drains a request body into a <see cref="RecyclableMemoryStream"/>, asynchronously, within a size limit, a limit on
/// silence, and what the in-flight memory budget admits as the body grows.
/// </summary>
/// <remarks>
/// Newtonsoft.Json only reads synchronously, and synchronous reads of a request body block a thread-pool thread per
/// request (Kestrel forbids them by default for that reason). So the body is read with async I/O into pooled blocks
/// and parsed from there: one copy of the raw bytes, never a string, and never one contiguous array, so a body costs
/// what it is, rounded up to a block, and no body reaches the large object heap.
/// </remarks>
internal static class RequestBodyReader
{
    /// <summary>The tag of the streams bodies are read into, as the pool's events report it.</summary>
    public const string StreamTag = "body";

    // Each read lands in a small pooled array and is copied into the stream's blocks: reads stay the size the
    // transport likes, whatever the block size.
    private const int ReadSize = 16 * 1024;

    /// <summary>
    /// Reads all of <paramref name="body"/>; the caller disposes the result. <paramref name="admit"/> is asked, with the
    /// bytes read so far, after every read: it answers whether the request may hold that much.
    /// </summary>
    /// <exception cref="BadHttpRequestException">
    /// 413 once the body passes <paramref name="limit"/>; 408 when no byte arrives for <paramref name="stallTimeout"/>;
    /// 400 when a compressed body does not decompress, or when the connection fails under a read (a client that resets
    /// or drops it mid-upload), so that a client going away is answered as a client fault, not logged as an unhandled exception.
    /// </exception>
    /// <exception cref="InFlightBudgetExceededException"><paramref name="admit"/> refused the body's growth.</exception>
    public static async Task<RecyclableMemoryStream> ReadAsync(
        Stream body, RecyclableMemoryStreamManager streams, long limit, TimeSpan stallTimeout, Func<long, bool> admit, CancellationToken cancellationToken)
    {
        var buffer = streams.GetStream(StreamTag);
        var chunk = ArrayPool<byte>.Shared.Rent(ReadSize);
        using var stall = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        try
        {
            while (true)
            {
                int read;
                try
                {
                    // The clock restarts with every read: what is bounded is silence, not the body's whole time.
                    stall.CancelAfter(stallTimeout);
                    read = await body.ReadAsync(chunk.AsMemory(0, ReadSize), stall.Token);
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new BadHttpRequestException(
                        $"No part of the body arrived for {stallTimeout.TotalSeconds:0.#} s; the request was cut off.", StatusCodes.Status408RequestTimeout);
                }
                catch (Exception e) when (e is InvalidDataException || (e is InvalidOperationException && body is BrotliStream))
                {
                    // Only a decompressing stream throws these (Brotli's decoder reports bad data as an invalid
                    // operation): the body is not what its Content-Encoding says it is.
                    throw new BadHttpRequestException("The body is not valid data of its Content-Encoding.", StatusCodes.Status400BadRequest, e);
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

                if (buffer.Length + read > limit)
                {
                    throw new BadHttpRequestException($"The body is larger than the limit of {limit} bytes.", StatusCodes.Status413PayloadTooLarge);
                }

                buffer.Write(chunk, 0, read);
                if (!admit(buffer.Length))
                {
                    throw new InFlightBudgetExceededException();
                }
            }
        }
        catch
        {
            buffer.Dispose();
            throw;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(chunk);
        }
    }
}
