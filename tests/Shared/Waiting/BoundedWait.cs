using System.Diagnostics;

namespace Signing.Tests.Waiting;

/// <summary>
/// Polls for something a server does in its own time (after a client has gone, or in its log), for a bounded time: the
/// tests of both hosts wait this way.
/// </summary>
internal static class BoundedWait
{
    /// <summary>Polls <paramref name="condition"/> every 20 ms until it holds or <paramref name="limit"/> passes; returns how long it took, or null.</summary>
    public static async Task<TimeSpan?> UntilAsync(Func<Task<bool>> condition, TimeSpan limit)
    {
        ArgumentNullException.ThrowIfNull(condition);
        var started = Stopwatch.StartNew();
        while (true)
        {
            if (await condition())
            {
                return started.Elapsed;
            }

            if (started.Elapsed > limit)
            {
                return null;
            }

            await Task.Delay(20);
        }
    }

    /// <inheritdoc cref="UntilAsync(Func{Task{bool}}, TimeSpan)"/>
    public static Task<TimeSpan?> UntilAsync(Func<bool> condition, TimeSpan limit) => UntilAsync(() => Task.FromResult(condition()), limit);
}
