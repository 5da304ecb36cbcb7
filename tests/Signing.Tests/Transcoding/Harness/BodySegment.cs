using System.Buffers;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>One piece of a body held as a chain of segments (see <see cref="SteppedPipeReader"/>).</summary>
internal sealed class BodySegment : ReadOnlySequenceSegment<byte>
{
    public BodySegment(ReadOnlyMemory<byte> memory, long runningIndex)
    {
        Memory = memory;
        RunningIndex = runningIndex;
    }

    /// <summary>Chains <paramref name="memory"/> after this segment and returns its segment.</summary>
    public BodySegment Append(ReadOnlyMemory<byte> memory)
    {
        var next = new BodySegment(memory, RunningIndex + Memory.Length);
        Next = next;
        return next;
    }
}
