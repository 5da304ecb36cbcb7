using Signing.Generation;
using Signing.Strategies;

namespace Signing.Tests.Strategies;

/// <summary>
/// Per-sign allocation, so a change that makes a strategy allocate more fails here and not months later in a
/// benchmark nobody ran. Not timed: <see cref="GC.GetAllocatedBytesForCurrentThread"/> counts bytes exactly, whatever the
/// machine's load.
/// </summary>
/// <remarks>
/// Each bound is what this machine measured (.NET 10, Debug or Release alike, November 2026) plus headroom: about 15%
/// for the Newtonsoft-based strategies, whose allocations we do not control and which may move a little with a
/// Newtonsoft or runtime update, and a fixed 256 bytes for <c>utf8</c>, whose measured 192 bytes (the signature string
/// and a small sink object) do not depend on the envelope. Measured at 3,000 widgets: string 5,893,280; memorystream
/// 4,656,456 to 4,656,680; recyclable 463,864; recyclablehash 463,560; streaming 462,128; utf8 192 bytes (also 192 at
/// 30 and at 30,000). The <c>utf8</c> bound is also what guards the per-thread HMAC state
/// (<see cref="Signing.Hashing.HmacCache"/>) that every hashing strategy shares: a new <c>IncrementalHash</c> per sign
/// costs another 224 bytes, so losing the reuse takes <c>utf8</c> to 424 (both measured) and fails here. If a bound fails,
/// find out why before raising it.
/// </remarks>
public sealed class AllocationGuardTests
{
    private static readonly SigningKey Key = new("0123456789abcdef0123456789abcdef"u8);

    [Theory]
    [InlineData(StringSigner.StrategyName, 3_000, 6_800_000)]
    [InlineData(MemoryStreamSigner.StrategyName, 3_000, 5_400_000)]
    [InlineData(RecyclableStreamSigner.StrategyName, 3_000, 540_000)]
    [InlineData(RecyclableHashSigner.StrategyName, 3_000, 540_000)]
    [InlineData(StreamingSigner.StrategyName, 3_000, 540_000)]
    [InlineData(Utf8Signer.StrategyName, 30, 256)]
    [InlineData(Utf8Signer.StrategyName, 3_000, 256)]
    [InlineData(Utf8Signer.StrategyName, 30_000, 256)]
    public void One_sign_allocates_no_more_than_measured(string name, int widgetCount, long boundBytes)
    {
        var strategy = SigningStrategies.CreateBuiltIn(Key, TestData.CreateStreams())[name];
        var least = LeastAllocatedBySign(strategy, EnvelopeGenerator.Create(widgetCount, 42));
        Assert.True(least <= boundBytes, $"'{name}' allocated {least:N0} bytes signing {widgetCount:N0} widgets; the bound is {boundBytes:N0}.");
    }

    public static TheoryData<string, int> EveryStrategyAtTwoSizes()
    {
        var data = new TheoryData<string, int>();
        foreach (var name in TestData.CreateStrategies().Names)
        {
            data.Add(name, 3_000);
            data.Add(name, 30_000);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(EveryStrategyAtTwoSizes))]
    public void A_sign_allocates_no_more_than_the_memory_its_request_is_charged_for(string name, int widgetCount)
    {
        // The in-flight budget charges a request HeldBytesPerDocumentByte per document byte for its sign; allocation is
        // the upper bound of what a sign keeps alive beside its pooled blocks, so it must stay under the charge.
        var strategy = SigningStrategies.CreateBuiltIn(Key, TestData.CreateStreams())[name];
        var envelope = EnvelopeGenerator.Create(widgetCount, 42);
        var bytesSigned = strategy.Sign(envelope).BytesSigned;
        var allocated = LeastAllocatedBySign(strategy, envelope);

        // A sign's fixed allocations (the signature string, a sink) are charged in the request's fixed part.
        Assert.True(
            allocated <= (strategy.HeldBytesPerDocumentByte * bytesSigned) + 1024,
            $"'{name}' allocated {allocated:N0} bytes signing {bytesSigned:N0}; it is charged {strategy.HeldBytesPerDocumentByte} per byte.");
    }

    // What one sign allocates on this thread, once warm: the least of three, so that a one-off allocation by the runtime
    // (a method tiering up during a long sign, for one) cannot fail a guard.
    private static long LeastAllocatedBySign(ISigningStrategy strategy, WidgetEnvelope envelope)
    {
        // Warm-up fills the pool and this thread's HMAC state and runs every one-time initialisation.
        for (var i = 0; i < 3; i++)
        {
            strategy.Sign(envelope);
        }

        var least = long.MaxValue;
        for (var i = 0; i < 3; i++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            strategy.Sign(envelope);
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        return least;
    }
}
