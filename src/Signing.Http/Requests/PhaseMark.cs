using System.Diagnostics;

namespace Signing.Http.Requests;

/// <summary>
/// The clock and the thread's allocation counter read at the start of a synchronous phase; <see cref="Stop"/> reads
/// them again on the same thread. Both reads are cheap and allocate nothing, so every request can be measured.
/// </summary>
internal readonly struct PhaseMark
{
    private readonly long _timestamp;
    private readonly long _allocatedBytes;

    private PhaseMark(long timestamp, long allocatedBytes)
    {
        _timestamp = timestamp;
        _allocatedBytes = allocatedBytes;
    }

    /// <summary>Marks the start of a phase on the current thread.</summary>
    public static PhaseMark Start() => new(Stopwatch.GetTimestamp(), GC.GetAllocatedBytesForCurrentThread());

    /// <summary>The cost since <see cref="Start"/>; call it on the thread that started the phase, before any await.</summary>
    public PhaseCost Stop()
    {
        var allocated = GC.GetAllocatedBytesForCurrentThread() - _allocatedBytes;
        return new PhaseCost(Stopwatch.GetElapsedTime(_timestamp), allocated);
    }
}
