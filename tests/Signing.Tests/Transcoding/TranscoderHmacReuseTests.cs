using System.Buffers;
using System.IO.Pipelines;
using System.Security.Cryptography;
using Signing.Hashing;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// <c>transcode</c> shares the per-thread HMAC cache: an unused HMAC goes back to it, and one a refused body has fed is
/// destroyed, never reused. Either loss shows only as memory or as a wrong later signature, so it is checked on the
/// cache itself. A body in one piece is signed synchronously, so the whole sign runs on the test's own thread.
/// </summary>
public sealed class TranscoderHmacReuseTests
{
    [Fact]
    public Task An_empty_body_gives_its_HMAC_back_to_the_cache() => OnNewThread(() =>
    {
        var cached = Cached();

        var result = Sign([]);

        Assert.True(result.IsEmptyBody);
        Assert.True(HmacCache.Holds(cached), "The HMAC an empty body took was not given back.");
    });

    [Fact]
    public Task A_refused_body_destroys_the_HMAC_it_fed() => OnNewThread(() =>
    {
        var cached = Cached();
        var refused = Bodies.Canonical(20, seed: 4)[..^1];

        Assert.Throws<EnvelopeFormatException>(() => Sign(refused));

        Assert.False(HmacCache.Holds(cached));
        Assert.Throws<ObjectDisposedException>(() => cached.AppendData("abc"u8));
    });

    // An HMAC for the test key, put in this thread's cache for the next sign to take.
    private static IncrementalHash Cached()
    {
        var hash = HmacCache.Take(TestData.Key);
        HmacCache.Keep(hash, TestData.Key);
        return hash;
    }

    private static TranscodeResult Sign(byte[] body)
    {
        var signing = new TranscodingSigner(TestData.Key).SignAsync(PipeReader.Create(new ReadOnlySequence<byte>(body))).AsTask();
        Assert.True(signing.IsCompleted, "The sign did not complete on the calling thread.");
        return signing.GetAwaiter().GetResult();
    }

    // A thread of its own, so the cache starts empty whatever other tests left on the pool's threads.
    private static Task OnNewThread(Action test) => Task.Factory.StartNew(test, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
}
