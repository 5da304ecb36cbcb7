using System.Buffers;
using System.IO.Pipelines;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// A reader that reveals a body one fixed-size segment per read, synchronously and without allocating, as Kestrel hands
/// over a request body in 4 KB pieces: the segments are made up front, so an allocation measured around a sign counts
/// only the sign's.
/// </summary>
internal sealed class SteppedPipeReader : PipeReader
{
    private readonly ReadOnlySequence<byte> _body;
    private readonly int _segmentBytes;
    private long _consumed;
    private long _revealed;

    public SteppedPipeReader(byte[] body, int segmentBytes)
    {
        _segmentBytes = segmentBytes;
        BodySegment? first = null;
        BodySegment? last = null;
        for (var at = 0; at < body.Length; at += segmentBytes)
        {
            var piece = body.AsMemory(at, Math.Min(segmentBytes, body.Length - at));
            last = last is null ? first = new BodySegment(piece, 0) : last.Append(piece);
        }

        _body = first is null ? ReadOnlySequence<byte>.Empty : new ReadOnlySequence<byte>(first, 0, last!, last!.Memory.Length);
    }

    /// <summary>How many reads were asked for, each of which the caller then tokenizes.</summary>
    public int Reads { get; private set; }

    /// <summary>How much of the body has been revealed so far.</summary>
    public long Revealed => _revealed;

    /// <summary>The most the caller has held unconsumed at once, which is what it keeps in memory.</summary>
    public long LargestWindow { get; private set; }

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined) => _consumed = _body.GetOffset(consumed);

    public override void CancelPendingRead() => throw new NotSupportedException();

    public override void Complete(Exception? exception = null)
    {
    }

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        Reads++;
        _revealed = Math.Min(_body.Length, _revealed + _segmentBytes);
        return ValueTask.FromResult(Result());
    }

    // As many segments at once as make minimumSize, as a reader does when that much has arrived.
    protected override ValueTask<ReadResult> ReadAtLeastAsyncCore(int minimumSize, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        Reads++;
        do
        {
            _revealed = Math.Min(_body.Length, _revealed + _segmentBytes);
        }
        while (_revealed - _consumed < minimumSize && _revealed < _body.Length);

        return ValueTask.FromResult(Result());
    }

    private ReadResult Result()
    {
        LargestWindow = Math.Max(LargestWindow, _revealed - _consumed);
        return new(_body.Slice(_consumed, _revealed - _consumed), isCanceled: false, isCompleted: _revealed == _body.Length);
    }

    public override bool TryRead(out ReadResult result) => throw new NotSupportedException();
}
