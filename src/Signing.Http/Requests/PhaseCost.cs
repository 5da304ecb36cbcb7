namespace Signing.Http.Requests;

/// <summary>
/// What one synchronous phase of a request (parsing or signing) cost the server: how long it took and how many bytes
/// it allocated on the request's own thread.
/// </summary>
/// <param name="Duration">Wall-clock time of the phase.</param>
/// <param name="AllocatedBytes">
/// Bytes allocated on the calling thread during the phase, from <see cref="GC.GetAllocatedBytesForCurrentThread"/>.
/// Exact for a phase that never leaves its thread, which is why only the synchronous phases are measured this way.
/// </param>
internal readonly record struct PhaseCost(TimeSpan Duration, long AllocatedBytes);
