using System.Buffers;
using BenchmarkDotNet.Attributes;
using Microsoft.IO;
using Signing.Strategies;
using Signing.Transcoding;

namespace Signing.Benchmarks;

/// <summary>
/// Question 4: what the whole request path costs in process, body bytes in and signature out, for every strategy. The
/// object strategies copy the body into the pool as the server reads it, parse it and sign the envelope; <c>transcode</c>
/// signs straight from a pipe. The socket, Kestrel and the response are left out, so the rows differ only in what the
/// service's own code does with a body. The floors are the least any path can do with the same bytes, tokenize them
/// once and hash them once; the baseline is both together, so <c>transcode</c>'s ratio is the figure its acceptance
/// (within 1.5 times the two floors) is read from.
/// </summary>
[MemoryDiagnoser]
public class RequestPathBenchmarks
{
    private RecyclableMemoryStreamManager _streams = null!;
    private SigningStrategies _strategies = null!;
    private TranscodingSigner _transcoder = null!;
    private byte[] _body = null!;
    private ReadOnlySequence<byte> _blocks;

    /// <summary>
    /// Widgets per body: 3,000 (about 1.1 MB, the write-up's size) and 30,000 (about 11 MB), where a whole-document
    /// buffer or object graph costs ten times as much and the floors do not change their nature.
    /// </summary>
    [Params(3_000, 30_000)]
    public int Widgets { get; set; }

    /// <summary>Builds the body, the pool and the signers outside the measurement, as a warm server holds them.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _streams = BenchmarkInputs.CreateStreams();
        _strategies = BenchmarkInputs.CreateStrategies(_streams);
        _transcoder = new TranscodingSigner(BenchmarkInputs.CreateKey());
        _body = BenchmarkInputs.CanonicalBytes(BenchmarkInputs.CreateEnvelope(Widgets));
        _blocks = BodyBlocks.Of(_body, ServerReads.KestrelBlockSize);
    }

    /// <summary>Both floors in one pass each: what <c>transcode</c> is held to.</summary>
    [Benchmark(Baseline = true, Description = "floor: tokenize + HMAC")]
    public long TokenizeThenHmac() => BodyFloors.CountTokens(_body) + BodyFloors.Hmac(_body);

    /// <summary>The tokenizer alone: every token of the body read once, nothing decoded or kept.</summary>
    [Benchmark(Description = "floor: tokenize")]
    public long Tokenize() => BodyFloors.CountTokens(_body);

    /// <summary>The HMAC alone, in one call over one array: the least hashing the body can cost.</summary>
    [Benchmark(Description = "floor: HMAC")]
    public byte HmacOnly() => BodyFloors.Hmac(_body);

    /// <summary>The write-up's first approach: the whole document as a string, then as bytes.</summary>
    [Benchmark(Description = StringSigner.StrategyName)]
    public SignResult StringSign() => ReadParseSign(StringSigner.StrategyName);

    /// <summary>A new <see cref="MemoryStream"/> per sign.</summary>
    [Benchmark(Description = MemoryStreamSigner.StrategyName)]
    public SignResult MemoryStreamSign() => ReadParseSign(MemoryStreamSigner.StrategyName);

    /// <summary>The document in a pooled <see cref="RecyclableMemoryStream"/>, the service's default.</summary>
    [Benchmark(Description = RecyclableStreamSigner.StrategyName)]
    public SignResult RecyclableSign() => ReadParseSign(RecyclableStreamSigner.StrategyName);

    /// <summary>The pooled document's blocks hashed in place.</summary>
    [Benchmark(Description = RecyclableHashSigner.StrategyName)]
    public SignResult RecyclableHashSign() => ReadParseSign(RecyclableHashSigner.StrategyName);

    /// <summary>Newtonsoft writing straight into the HMAC.</summary>
    [Benchmark(Description = StreamingSigner.StrategyName)]
    public SignResult StreamingSign() => ReadParseSign(StreamingSigner.StrategyName);

    /// <summary>Canonical UTF-8 written directly, hashed chunk by chunk.</summary>
    [Benchmark(Description = Utf8Signer.StrategyName)]
    public SignResult Utf8Sign() => ReadParseSign(Utf8Signer.StrategyName);

    /// <summary>
    /// The body transcoded and hashed as it is read: no pooled copy of the body, no envelope, no document.
    /// </summary>
    /// <remarks>Read as the server reads it: <see cref="ServerReads.TranscodeAsync"/>.</remarks>
    [Benchmark(Description = TranscodingSigner.StrategyName)]
    public ValueTask<string> Transcode() => ServerReads.TranscodeAsync(_transcoder, _body);

    /// <summary>
    /// <c>transcode</c> given the body in Kestrel's 4 KiB pieces, as it will be once it reads <c>Request.BodyReader</c>
    /// directly: a plain widget crosses a piece's end about every eleventh widget instead of every forty-fifth.
    /// </summary>
    [Benchmark(Description = "transcode, 4 KiB reads")]
    public ValueTask<string> TranscodeKestrelReads() => ServerReads.TranscodeAsync(_transcoder, _body, ServerReads.KestrelBlockSize);

    /// <summary>
    /// <c>transcode</c> given the whole body in one read of 4 KiB segments, as Kestrel hands over a body that arrived
    /// before the request was read (what a loaded server mostly sees).
    /// </summary>
    [Benchmark(Description = "transcode, buffered in 4 KiB blocks")]
    public ValueTask<string> TranscodeKestrelBuffered() => ServerReads.TranscodeBufferedAsync(_transcoder, _blocks);

    /// <summary>
    /// <c>transcode</c> given the whole body in one read of one block: beside the row above, what the blocks cost.
    /// </summary>
    [Benchmark(Description = "transcode, buffered in one block")]
    public ValueTask<string> TranscodeOneBlock() => ServerReads.TranscodeBufferedAsync(_transcoder, new ReadOnlySequence<byte>(_body));

    // The server's object path: the body written into a pooled stream as it arrives, parsed from the stream's blocks,
    // the stream given back once parsed (before signing, so a recyclable strategy can reuse its blocks), then signed.
    private SignResult ReadParseSign(string strategy)
    {
        WidgetEnvelope envelope;
        using (var body = _streams.GetStream("body"))
        {
            for (var offset = 0; offset < _body.Length; offset += ServerReads.ReadSize)
            {
                body.Write(_body, offset, Math.Min(ServerReads.ReadSize, _body.Length - offset));
            }

            envelope = EnvelopeParser.Parse(body);
        }

        return _strategies[strategy].Sign(envelope);
    }
}
