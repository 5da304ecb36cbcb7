using System.Buffers;
using System.IO.Pipelines;
using Signing.Transcoding;

namespace Signing.Benchmarks;

/// <summary>How the server hands a body to the code under test, for the benchmarks that start from body bytes.</summary>
internal static class ServerReads
{
    /// <summary>
    /// What the server asks of the request body at a time (EnvelopeRequestReader), so that each write into the pool is
    /// as long as one of its writes, and each of the transcoder's pipe buffers as large as one of its.
    /// </summary>
    public const int ReadSize = 16 * 1024;

    /// <summary>
    /// The size of the pieces Kestrel's request pipe hands over (its memory pool's blocks), which is what the transcoder
    /// gets once it reads <c>Request.BodyReader</c> directly instead of through a 16 KiB stream reader.
    /// </summary>
    public const int KestrelBlockSize = 4 * 1024;

    /// <summary>
    /// Signs <paramref name="body"/> with <paramref name="signer"/> through a <see cref="PipeReader"/> with the server's
    /// options (EnvelopeRequestReader's <c>TranscodeAsync</c>: 16 KiB buffers, the stream left open), or with buffers of
    /// <paramref name="readSize"/>.
    /// </summary>
    /// <remarks>
    /// The transcoder gets what it gets in the server: pooled segments, one read at a time, tokens cut at their edges,
    /// each buffer the unread end of one segment followed by the next. A stream over memory fills each 16 KiB read,
    /// where a socket may return less; the copy into the segments stands for the socket's receive, a memcpy that the
    /// object paths pay too, into the pool. A reader over the whole body as one
    /// <see cref="System.Buffers.ReadOnlySequence{T}"/> would copy nothing, but would hand over the body in a single
    /// final read, which no network does, and leave the transcoder's resumption across reads unmeasured. Reads from
    /// memory complete at once, so no await suspends.
    /// </remarks>
    public static async ValueTask<string> TranscodeAsync(TranscodingSigner signer, byte[] body, int readSize = ReadSize)
    {
        var reader = PipeReader.Create(new MemoryStream(body, writable: false), new StreamPipeReaderOptions(bufferSize: readSize, leaveOpen: true));
        try
        {
            return (await signer.SignAsync(reader)).Signature;
        }
        finally
        {
            // Gives the pipe's segments back to the pool; the signer leaves completing the reader to its owner.
            await reader.CompleteAsync();
        }
    }

    /// <summary>
    /// Signs a body handed over as Kestrel hands over one that arrived while the request waited for its turn: the whole
    /// of it in one read, in <see cref="KestrelBlockSize"/> blocks (a load run's server saw about 128 blocks, 520 KB, a
    /// read on average at 3,000 widgets). The blocks are the body's own memory (<see cref="BodyBlocks"/>), as Kestrel's
    /// are the socket's: nothing is copied or allocated on the way but the reader.
    /// </summary>
    public static async ValueTask<string> TranscodeBufferedAsync(TranscodingSigner signer, ReadOnlySequence<byte> blocks)
    {
        var reader = PipeReader.Create(blocks);
        try
        {
            return (await signer.SignAsync(reader)).Signature;
        }
        finally
        {
            await reader.CompleteAsync();
        }
    }
}
