using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Signing.Strategies;

namespace Signing.Benchmarks;

/// <summary>
/// Question 3: how close the strategies come to the least a sign can cost. The floors are the two halves of a sign
/// done alone on 3,000 widgets: serializing into an output that discards the bytes, and the HMAC of bytes serialized
/// beforehand. A strategy cannot beat the sum of its two halves; <c>utf8</c> is the baseline, so each floor's ratio is
/// its share of that strategy.
/// </summary>
[MemoryDiagnoser]
public class FloorBenchmarks
{
    private readonly DiscardingBufferWriter _discard = new();
    private SigningStrategies _strategies = null!;
    private WidgetEnvelope _envelope = null!;
    private byte[] _canonical = null!;
    private IncrementalHash _hmac = null!;

    /// <summary>Builds the envelope, its canonical bytes and the HMAC state outside the measurement.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _strategies = BenchmarkInputs.CreateStrategies();
        _envelope = BenchmarkInputs.CreateEnvelope(BenchmarkInputs.WriteUpWidgetCount);
        _canonical = BenchmarkInputs.CanonicalBytes(_envelope);
        _hmac = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, BenchmarkInputs.KeyBytes);
    }

    /// <summary>Releases the HMAC state.</summary>
    [GlobalCleanup]
    public void Cleanup() => _hmac.Dispose();

    /// <summary>The whole <c>utf8</c> sign, for the floors to be compared with.</summary>
    [Benchmark(Baseline = true, Description = "utf8: sign")]
    public SignResult Utf8Sign() => _strategies[Utf8Signer.StrategyName].Sign(_envelope);

    /// <summary><c>utf8</c>'s serialization alone: its writer into an output that discards.</summary>
    [Benchmark(Description = "utf8: serialize only")]
    public long Utf8SerializeOnly() => CanonicalUtf8Writer.Write(_envelope, _discard);

    /// <summary><c>utf8</c>'s hashing alone: the same bytes fed in chunks of the same size, as its sink feeds them.</summary>
    [Benchmark(Description = "HMAC only, 16 KiB chunks")]
    public byte HmacOnlyChunked()
    {
        for (var offset = 0; offset < _canonical.Length; offset += Utf8Signer.ChunkBytes)
        {
            _hmac.AppendData(_canonical.AsSpan(offset, Math.Min(Utf8Signer.ChunkBytes, _canonical.Length - offset)));
        }

        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        _hmac.GetHashAndReset(mac);
        return mac[0];
    }

    /// <summary>Hashing alone in one call over one array: the least hashing the document can cost.</summary>
    [Benchmark(Description = "HMAC only, one call")]
    public byte HmacOnlyOneShot()
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(BenchmarkInputs.KeyBytes, _canonical, mac);
        return mac[0];
    }

    /// <summary>The whole <c>streaming</c> sign: the best Newtonsoft-based strategy, for its floor below.</summary>
    [Benchmark(Description = "streaming: sign")]
    public SignResult StreamingSign() => _strategies[StreamingSigner.StrategyName].Sign(_envelope);

    /// <summary>Newtonsoft's serialization alone, through the StreamWriter every Newtonsoft strategy uses.</summary>
    [Benchmark(Description = "Newtonsoft: serialize only")]
    public WidgetEnvelope NewtonsoftSerializeOnly()
    {
        CanonicalJson.Write(_envelope, Stream.Null);
        return _envelope;
    }
}
