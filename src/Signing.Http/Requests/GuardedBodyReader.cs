using System.Buffers;
using System.IO.Compression;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Http;
using Signing.Http.Memory;

namespace Signing.Http.Requests;

/// <summary>
/// The request body as the endpoint reads it, whichever way it is consumed (drained into pooled blocks, or tokenized
/// straight from the wire): a <see cref="PipeReader"/> over the host's own <c>Request.BodyReader</c>, so no copy of the
/// body is made on the way, that enforces read by read what must hold for every request. Past the size limit, or
/// decompressed past what its bytes on the wire allow (<see cref="DecompressionRatio"/>), it is a 413; silent while
/// the server waits for it (<see cref="BodyStallClock"/>), a 408; a broken connection or a body that does not
/// decompress, a 400; and grown past what the in-flight budget admits, a refusal
/// (<see cref="InFlightBudgetExceededException"/>).
/// </summary>
/// <remarks>
/// A compressed body is two of these: one with the stall clock over the host's reader, seen as a stream by the
/// decompressor, and one with the limit, the ratio and the charge over the decompressed bytes. A stall is ended with
/// <see cref="PipeReader.CancelPendingRead"/> and the host's read is then advanced, so the host's reader is left as it
/// expects: never cancelled through a token, which Kestrel reports as "Reading is already in progress" when it drains
/// the body.
/// </remarks>
internal sealed class GuardedBodyReader : PipeReader
{
    private readonly PipeReader _inner;
    private readonly bool _ownsInner;
    private readonly long _limit;
    private readonly Func<long, bool>? _admit;
    private readonly BodyStallClock? _clock;
    private readonly BodyStallClock? _progress;
    private readonly Stream? _decoding;
    private readonly DecompressionRatio? _ratio;
    private ReadOnlySequence<byte> _buffer;
    private bool _examining;
    private long _consumed;
    private long _admitted;
    private long _arrived;

    /// <summary>Guards <paramref name="inner"/>.</summary>
    /// <param name="inner">The host's body reader, or a reader over a decompressing stream.</param>
    /// <param name="ownsInner">Whether completing this reader completes <paramref name="inner"/>: never the host's own.</param>
    /// <param name="limit">The most bytes the body may have.</param>
    /// <param name="admit">Asked as bytes arrive with the bytes seen so far: may the request hold that much? None: not charged here.</param>
    /// <param name="clock">Times the reads that wait for the client; none when the reader below already has one.</param>
    /// <param name="decoding">The decompressing stream under <paramref name="inner"/>, whose failures are the client's 400.</param>
    /// <param name="progress">
    /// Told of the bytes this reader sees, as the body's progress (<see cref="BodyStallClock.Arrived"/>, or
    /// <see cref="BodyStallClock.Decompressed"/> over a decompressor). None: not told.
    /// </param>
    /// <param name="ratio">Over a decompressor, how far the bytes seen may outgrow those on the wire. None: no bound.</param>
    public GuardedBodyReader(
        PipeReader inner,
        bool ownsInner,
        long limit,
        Func<long, bool>? admit,
        BodyStallClock? clock,
        Stream? decoding,
        BodyStallClock? progress = null,
        DecompressionRatio? ratio = null)
    {
        _inner = inner;
        _ownsInner = ownsInner;
        _limit = limit;
        _admit = admit;
        _clock = clock;
        _progress = progress;
        _decoding = decoding;
        _ratio = ratio;
    }

    /// <summary>Bytes seen so far: consumed, and buffered but not yet consumed.</summary>
    public long BytesSeen => _consumed + _buffer.Length;

    /// <inheritdoc/>
    /// <exception cref="BadHttpRequestException">413, 408 or 400, as the class describes.</exception>
    /// <exception cref="InFlightBudgetExceededException">The budget refused the body's growth.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        ReadResult result;
        try
        {
            var pending = _inner.ReadAsync(cancellationToken);
            if (pending.IsCompleted || _clock is null)
            {
                result = await pending;
            }
            else
            {
                // Only a read that has to wait is the client's time; a read answered from what is buffered is not.
                _clock.Start();
                try
                {
                    result = await pending;
                }
                finally
                {
                    _clock.Stop();
                }
            }

            if (_clock is { Stalled: true })
            {
                // The clock cancelled this read (or, cut while the read was completing, the next); leave the host's
                // reader advanced, as it expects, before refusing.
                _inner.AdvanceTo(result.Buffer.Start);
                throw new BodyStalledException(_clock);
            }
        }
        catch (Exception e) when (e is InvalidDataException || (e is InvalidOperationException && _decoding is BrotliStream))
        {
            // Only a decompressing stream throws these (Brotli's decoder reports bad data as an invalid operation):
            // the body is not what its Content-Encoding says it is.
            throw new BadHttpRequestException("The body is not valid data of its Content-Encoding.", StatusCodes.Status400BadRequest, e);
        }
        catch (IOException e) when (e is not BadHttpRequestException && e.InnerException is OverflowException)
        {
            // Kestrel's one refusal that is not a BadHttpRequestException: a chunk size over int.MaxValue, a bare
            // IOException over the overflow. The framing is broken, not the connection.
            throw new BadHttpRequestException(e.Message, StatusCodes.Status400BadRequest, e.InnerException);
        }
        catch (IOException e) when (e is not BadHttpRequestException)
        {
            // The transport failed under the read: the client reset or dropped the connection mid-body. That is the
            // client's fault, as a body cut short by a clean close is (Kestrel's 400), not the server's. Kestrel's other
            // refusals (a body past its limit, broken framing) are IOExceptions too, and pass as they are.
            throw new BadHttpRequestException("The connection closed before the body was complete.", StatusCodes.Status400BadRequest, e);
        }

        Check(result);
        return result;
    }

    /// <inheritdoc/>
    public override bool TryRead(out ReadResult result)
    {
        if (!_inner.TryRead(out result))
        {
            return false;
        }

        Check(result);
        return true;
    }

    /// <inheritdoc/>
    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    /// <inheritdoc/>
    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        // Offsets, not a slice: slicing walks the read's segments, and a large body is read a few hundred times.
        _consumed += _buffer.GetOffset(consumed) - _buffer.GetOffset(_buffer.Start);
        _buffer = default;
        _examining = false;
        _inner.AdvanceTo(consumed, examined);
    }

    /// <inheritdoc/>
    public override void CancelPendingRead() => _inner.CancelPendingRead();

    /// <inheritdoc/>
    public override void Complete(Exception? exception = null)
    {
        if (_ownsInner)
        {
            _inner.Complete(exception);
        }
        else if (_examining)
        {
            // A consumer that failed between a read and its advance (a body the transcoder refused) leaves the host's
            // reader mid-read, and Kestrel would fail to drain it ("Reading is already in progress") and drop the
            // connection; handing the read back, unconsumed, leaves the reader as the host expects.
            HandBack(exception);
        }
    }

    // Gives the read in hand back to the inner reader unconsumed, so that it can be read (or drained) again, and returns
    // the reason, for the caller to throw.
    private T HandBack<T>(T reason)
    {
        _inner.AdvanceTo(_buffer.Start);
        _buffer = default;
        _examining = false;
        return reason;
    }

    // What every read's result must satisfy: within the limit, and charged for.
    private void Check(ReadResult result)
    {
        _buffer = result.Buffer;
        _examining = true;
        var seen = BytesSeen;
        if (_progress is not null && seen > _arrived)
        {
            if (_decoding is null)
            {
                _progress.Arrived(seen - _arrived);
            }
            else
            {
                _progress.Decompressed(seen - _arrived);
            }

            _arrived = seen;
        }

        if (seen > _limit)
        {
            throw HandBack(new BadHttpRequestException($"The body is larger than the limit of {_limit} bytes.", StatusCodes.Status413PayloadTooLarge));
        }

        if (_ratio is not null && !_ratio.Allows(seen))
        {
            throw HandBack(new DecompressionRatioExceededException(_ratio.Most));
        }

        if (_admit is not null && seen > _admitted)
        {
            if (!_admit(seen))
            {
                throw HandBack(new InFlightBudgetExceededException());
            }

            _admitted = seen;
        }
    }
}
