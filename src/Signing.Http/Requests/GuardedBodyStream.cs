using System.IO.Compression;
using Microsoft.AspNetCore.Http;
using Signing.Http.Memory;

namespace Signing.Http.Requests;

/// <summary>
/// The request body as the endpoint reads it, whichever way it is consumed (drained into pooled blocks, or tokenized
/// straight from the wire): a read-only stream over the body, decompressed when it was compressed, that enforces read
/// by read what must hold for every request. Past the size limit it is a 413; silent for the stall timeout, a 408; a
/// broken connection or body that does not decompress, a 400; and grown past what the in-flight budget admits, a
/// refusal (<see cref="InFlightBudgetExceededException"/>).
/// </summary>
/// <remarks>
/// One cancellation source, linked to the request's, serves every read, its timer running only while a read waits, so
/// the stall bound costs nothing per read and measures the client's silence, never the time the server spends between reads.
/// </remarks>
internal sealed class GuardedBodyStream : Stream
{
    private readonly Stream _body;
    private readonly long _limit;
    private readonly TimeSpan _stallTimeout;
    private readonly Func<long, bool> _admit;
    private readonly CancellationToken _requestAborted;
    private CancellationTokenSource _stall;

    /// <summary>Guards <paramref name="body"/>, which stays the caller's to dispose.</summary>
    /// <param name="body">The body as the host gives it, or a decompressing stream over it.</param>
    /// <param name="limit">The most bytes the body may have (decompressed).</param>
    /// <param name="stallTimeout">How long one read may wait for the client.</param>
    /// <param name="admit">Asked after every read with the bytes read so far: may the request hold that much?</param>
    /// <param name="requestAborted">The request's own cancellation, which every read honours.</param>
    public GuardedBodyStream(Stream body, long limit, TimeSpan stallTimeout, Func<long, bool> admit, CancellationToken requestAborted)
    {
        _body = body;
        _limit = limit;
        _stallTimeout = stallTimeout;
        _admit = admit;
        _requestAborted = requestAborted;
        _stall = CancellationTokenSource.CreateLinkedTokenSource(requestAborted);
    }

    /// <summary>Bytes read so far.</summary>
    public long BytesRead { get; private set; }

    /// <inheritdoc/>
    public override bool CanRead => true;

    // The members marked "unreachable" below are Stream's contract, which nothing in the service reaches: the class is
    // internal and its two readers (CopyToAsync with a buffer size, and StreamPipeReader) call only ReadAsync(Memory<byte>).

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override bool CanSeek => false;

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override bool CanWrite => false;

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override long Length => throw new NotSupportedException("A request body's length is known once it has been read.");

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override long Position
    {
        get => BytesRead;
        set => throw new NotSupportedException("A request body is read once, forwards.");
    }

    /// <inheritdoc/>
    /// <exception cref="BadHttpRequestException">413, 408 or 400, as the class describes.</exception>
    /// <exception cref="InFlightBudgetExceededException">The budget refused the body's growth.</exception>
    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        // Stryker disable once Block,Boolean,Statement : a source made afresh serves exactly as a reset one (it costs an
        // allocation, no more), and the timer firing in the instant between a read's end and the next read cannot be
        // arranged from outside.
        if (!_stall.TryReset())
        {
            // The timer went off as the last read completed; it measured nothing, and a fired source cannot be reset.
            _stall.Dispose();
            _stall = CancellationTokenSource.CreateLinkedTokenSource(_requestAborted);
        }

        // The source already follows the request's token; a reader's own token (a PipeReader passes one per read) is
        // registered for this read instead of linked, since a registration reuses the source's callback slots where a
        // linked source per read would allocate with every read of a large body.
        // Stryker disable once all : the only token that ever cancels a read is the request's, which the source already
        // follows: CopyToAsync passes it as it is, and StreamPipeReader links its own to it. Registering always, never, or
        // for the other case changes nothing any caller can see.
        using var registration = cancellationToken.CanBeCanceled && cancellationToken != _requestAborted
            ? cancellationToken.UnsafeRegister(static stall => ((CancellationTokenSource)stall!).Cancel(), _stall)
            : default;
        int read;
        try
        {
            _stall.CancelAfter(_stallTimeout);
            read = await _body.ReadAsync(buffer, _stall.Token);
        }
        // Stryker disable once Logical : the reader's token is the request's or linked to it, so both are cancelled together
        // and "and" and "or" agree.
        catch (OperationCanceledException) when (!_requestAborted.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            throw new BadHttpRequestException(
                $"No part of the body arrived for {_stallTimeout.TotalSeconds:0.#} s; the request was cut off.", StatusCodes.Status408RequestTimeout);
        }
        catch (Exception e) when (e is InvalidDataException || (e is InvalidOperationException && _body is BrotliStream))
        {
            // Only a decompressing stream throws these (Brotli's decoder reports bad data as an invalid operation):
            // the body is not what its Content-Encoding says it is.
            throw new BadHttpRequestException("The body is not valid data of its Content-Encoding.", StatusCodes.Status400BadRequest, e);
        }
        catch (IOException e) when (e is not BadHttpRequestException)
        {
            // The transport failed under the read: the client reset or dropped the connection mid-body. That is the
            // client's fault, as a body cut short by a clean close is (Kestrel's 400), not the server's. Kestrel's own
            // refusals (a body past its limit, broken framing) are IOExceptions too, and pass as they are.
            throw new BadHttpRequestException("The connection closed before the body was complete.", StatusCodes.Status400BadRequest, e);
        }
        // Stryker disable once Block,Statement : stops the timer between reads, which costs nothing visible if left to run:
        // the next read resets it (or replaces the source when it fired), and after the last read nothing listens.
        finally
        {
            _stall.CancelAfter(Timeout.InfiniteTimeSpan);
        }

        BytesRead += read;
        if (BytesRead > _limit)
        {
            throw new BadHttpRequestException($"The body is larger than the limit of {_limit} bytes.", StatusCodes.Status413PayloadTooLarge);
        }

        // Stryker disable once Equality : at the end of the body (a read of 0) admitting the same total again is a no-op.
        if (read > 0 && !_admit(BytesRead))
        {
            throw new InFlightBudgetExceededException();
        }

        return read;
    }

    /// <inheritdoc/>
    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override int Read(byte[] buffer, int offset, int count) =>
        throw new NotSupportedException("A request body is read asynchronously: a synchronous read would block a thread per request.");

    /// <inheritdoc/>
    public override void Flush()
    {
        // Read-only: nothing to flush.
    }

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException("A request body is read once, forwards.");

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override void SetLength(long value) => throw new NotSupportedException("A request body is read-only.");

    /// <inheritdoc/>
    // Stryker disable once all : unreachable (see above).
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException("A request body is read-only.");

    /// <inheritdoc/>
    // Stryker disable once all : disposing frees the stall source, whose timer is already stopped after every read, and
    // Stream's own Dispose(bool) does nothing; no caller can tell whether it ran.
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _stall.Dispose();
        }

        base.Dispose(disposing);
    }
}
