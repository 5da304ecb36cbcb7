using Signing.Http.Requests;

namespace Signing.Http.Stats;

/// <summary>
/// One strategy's running totals since the process started. Updated with <see cref="Interlocked"/> by every request
/// and read field by field for a snapshot, so neither side takes a lock.
/// </summary>
internal sealed class StrategyTotals(string name)
{
    private long _requests;
    private long _errors;
    private long _refused;
    private long _parseAllocatedBytes;
    private long _signAllocatedBytes;
    private long _parseTicks;
    private long _signTicks;

    public string Name { get; } = name;

    public void Add(SignCost cost, RequestOutcome outcome)
    {
        Interlocked.Increment(ref _requests);
        if (outcome != RequestOutcome.Succeeded)
        {
            Interlocked.Increment(ref _errors);
        }

        if (outcome == RequestOutcome.Refused)
        {
            Interlocked.Increment(ref _refused);
        }

        if (cost.Parse is { } parse)
        {
            Interlocked.Add(ref _parseAllocatedBytes, parse.AllocatedBytes);
            Interlocked.Add(ref _parseTicks, parse.Duration.Ticks);
        }

        if (cost.Sign is { } sign)
        {
            Interlocked.Add(ref _signAllocatedBytes, sign.AllocatedBytes);
            Interlocked.Add(ref _signTicks, sign.Duration.Ticks);
        }
    }

    // Each field is read atomically; a request that lands mid-snapshot may show in some totals and not yet in others,
    // which is harmless when runs are compared by differences over many requests.
    public StrategyStats Snapshot() => new(
        Name,
        Interlocked.Read(ref _requests),
        Interlocked.Read(ref _errors),
        Interlocked.Read(ref _refused),
        Interlocked.Read(ref _parseAllocatedBytes),
        Interlocked.Read(ref _signAllocatedBytes),
        TimeSpan.FromTicks(Interlocked.Read(ref _parseTicks)).TotalSeconds,
        TimeSpan.FromTicks(Interlocked.Read(ref _signTicks)).TotalSeconds);
}
