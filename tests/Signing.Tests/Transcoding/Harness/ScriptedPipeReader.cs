using System.Buffers;
using System.IO.Pipelines;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// A reader whose every read is scripted: read <c>i</c> returns the body from where the caller last consumed to the
/// last of <c>reads[i]</c>'s offsets, as one segment per offset, complete once it reaches the body's end. It records
/// where each read left the caller, so a test can see what one read accepted.
/// </summary>
internal sealed class ScriptedPipeReader(byte[] body, params int[][] reads) : PipeReader
{
    private readonly List<long> _consumedAfter = [];
    private ReadOnlySequence<byte> _buffer;
    private long _bufferStart;
    private long _consumed;

    /// <summary>The body offset the caller consumed to after each read, in order.</summary>
    public IReadOnlyList<long> ConsumedAfter => _consumedAfter;

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        _consumed = _bufferStart + _buffer.Slice(0, consumed).Length;
        _consumedAfter.Add(_consumed);
    }

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        var ends = reads[_consumedAfter.Count];
        var first = new BodySegment(body.AsMemory((int)_consumed, ends[0] - (int)_consumed), _consumed);
        var last = first;
        for (var i = 1; i < ends.Length; i++)
        {
            last = last.Append(body.AsMemory(ends[i - 1], ends[i] - ends[i - 1]));
        }

        (_buffer, _bufferStart) = (new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length), _consumed);
        return ValueTask.FromResult(new ReadResult(_buffer, isCanceled: false, isCompleted: ends[^1] == body.Length));
    }

    protected override ValueTask<ReadResult> ReadAtLeastAsyncCore(int minimumSize, CancellationToken cancellationToken) =>
        ReadAsync(cancellationToken);

    public override void CancelPendingRead() => throw new NotSupportedException();

    public override void Complete(Exception? exception = null)
    {
    }

    public override bool TryRead(out ReadResult result) => throw new NotSupportedException();
}
