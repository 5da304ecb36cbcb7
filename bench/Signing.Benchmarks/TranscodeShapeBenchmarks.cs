using System.Text;
using BenchmarkDotNet.Attributes;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Signing.Transcoding;

namespace Signing.Benchmarks;

/// <summary>
/// Question 5: what <c>transcode</c> costs when the body is not written as the canonical document is. A widget in
/// canonical shape is copied in one piece; one whose values are plain is read without the tokenizer in any layout and
/// written value by value; any other is tokenized. The same 3,000 widgets written three ways, each against the floors
/// of its own bytes.
/// </summary>
[MemoryDiagnoser]
public class TranscodeShapeBenchmarks
{
    private TranscodingSigner _transcoder = null!;
    private byte[] _body = null!;

    /// <summary>How the body is written.</summary>
    public enum BodyShape
    {
        /// <summary>As the canonical document: compact, members in order. Every widget is copied.</summary>
        Canonical,

        /// <summary>Indented, as a person or a pretty-printing client writes it. Every widget's whitespace is skipped.</summary>
        Indented,

        /// <summary>Compact, each widget's members in reverse order. Every widget's values are found, then written in order.</summary>
        Reversed,
    }

    /// <summary>The shape of the body.</summary>
    [Params(BodyShape.Canonical, BodyShape.Indented, BodyShape.Reversed)]
    public BodyShape Shape { get; set; }

    /// <summary>Writes the body and builds the signer outside the measurement.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _transcoder = new TranscodingSigner(BenchmarkInputs.CreateKey());
        var envelope = BenchmarkInputs.CreateEnvelope(BenchmarkInputs.WriteUpWidgetCount);
        _body = Shape switch
        {
            BodyShape.Canonical => BenchmarkInputs.CanonicalBytes(envelope),
            BodyShape.Indented => Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(envelope, Formatting.Indented, CanonicalJson.Settings)),
            _ => Reversed(envelope),
        };
    }

    /// <summary>Both floors over this body's bytes.</summary>
    [Benchmark(Baseline = true, Description = "floor: tokenize + HMAC")]
    public long TokenizeThenHmac() => BodyFloors.CountTokens(_body) + BodyFloors.Hmac(_body);

    /// <summary>The body transcoded and hashed as the server reads it.</summary>
    [Benchmark(Description = TranscodingSigner.StrategyName)]
    public ValueTask<string> Transcode() => ServerReads.TranscodeAsync(_transcoder, _body);

    private static byte[] Reversed(WidgetEnvelope envelope)
    {
        var document = JObject.FromObject(envelope, JsonSerializer.Create(CanonicalJson.Settings));
        foreach (var widget in document["widgets"]!.Children<JObject>())
        {
            var members = widget.Properties().Reverse().ToList();
            widget.RemoveAll();
            members.ForEach(widget.Add);
        }

        return Encoding.UTF8.GetBytes(document.ToString(Formatting.None));
    }
}
