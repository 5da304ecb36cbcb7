using System.Text;
using Microsoft.IO;
using Newtonsoft.Json;
using Signing.Generation;
using Signing.Http.Memory;

namespace Signing.Benchmarks;

/// <summary>
/// What every benchmark signs with, made the same way each time: a fixed key and the generator's deterministic
/// envelopes, so runs on different days or machines measure the same work.
/// </summary>
public static class BenchmarkInputs
{
    /// <summary>The widget count of the write-up's table: about 1.1 MB of canonical JSON.</summary>
    public const int WriteUpWidgetCount = 3_000;

    /// <summary>The generator seed; any fixed value would do, this one is the tests' as well.</summary>
    public const int Seed = 42;

    /// <summary>The key bytes, kept here because the HMAC-only floor needs them without a strategy around them.</summary>
    public static byte[] KeyBytes { get; } = Encoding.ASCII.GetBytes("benchmark key, 32 bytes long....");

    /// <summary>
    /// The strategies under test, as the service builds them: one RecyclableMemoryStream pool with the service's
    /// default options, shared as it would be in a process.
    /// </summary>
    public static SigningStrategies CreateStrategies() => CreateStrategies(CreateStreams());

    /// <summary>
    /// The strategies under test taking their streams from <paramref name="streams"/>, for a benchmark that also reads
    /// bodies into that pool, as the service reads bodies and documents from its one pool.
    /// </summary>
    public static SigningStrategies CreateStrategies(RecyclableMemoryStreamManager streams) =>
        SigningStrategies.CreateBuiltIn(CreateKey(), streams);

    /// <summary>The service's pool: the library with the service's default options.</summary>
    public static RecyclableMemoryStreamManager CreateStreams() => new(StreamPoolSettings.DefaultOptions());

    /// <summary>The key every strategy signs with, for a signer built outside <see cref="CreateStrategies()"/>.</summary>
    public static SigningKey CreateKey() => new(KeyBytes);

    /// <summary>Plain widgets, like the write-up's data.</summary>
    public static WidgetEnvelope CreateEnvelope(int widgetCount) => EnvelopeGenerator.Create(widgetCount, Seed, GeneratedText.Plain);

    /// <summary>The canonical bytes of <paramref name="envelope"/>: a request body, and what the HMAC-only floors hash.</summary>
    public static byte[] CanonicalBytes(WidgetEnvelope envelope) =>
        Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(envelope, CanonicalJson.Settings));
}
