using System.IO.Pipelines;
using Newtonsoft.Json;
using Signing.Generation;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>Request bodies for the signer tests, and pipes that deliver them as a client would.</summary>
internal static class Bodies
{
    /// <summary>A generated envelope as canonical JSON, the body a well-behaved client sends.</summary>
    public static byte[] Canonical(int widgetCount, int seed, GeneratedText text = GeneratedText.Plain) =>
        CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(widgetCount, seed, text), CanonicalJson.Settings));

    /// <summary>
    /// A body with every widget's members in reverse order. With plain text each widget is copied without the
    /// tokenizer; with awkward text each is tokenized, and its members but the last are held back until the widget ends.
    /// </summary>
    public static byte[] Reversed(int widgetCount, int seed, GeneratedText text = GeneratedText.Plain)
    {
        var envelope = EnvelopeGenerator.Create(widgetCount, seed, text);
        var widgets = envelope.Widgets.Select(w => EnvelopeJson.Widget(EnvelopeJson.Members.Reverse(), m => m switch
        {
            "id" => JsonConvert.SerializeObject(w.Id),
            "createdUtc" => JsonConvert.SerializeObject(w.CreatedUtc, CanonicalJson.Settings),
            _ => JsonConvert.SerializeObject(typeof(Widget).GetProperty("P" + m[1..])!.GetValue(w)),
        }));
        return CanonicalJson.Utf8.GetBytes(EnvelopeJson.Envelope([.. widgets]));
    }

    /// <summary>
    /// A pipe whose writer, on another task, sends <paramref name="body"/> in pieces of random size (1 byte to 64 KiB)
    /// with a flush after each, then completes; the reader is what the transcoder reads.
    /// </summary>
    public static PipeReader Sent(byte[] body, int seed)
    {
        // No back-pressure: a token may be longer than the default 64 KB pause threshold.
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, resumeWriterThreshold: 0, useSynchronizationContext: false));
        _ = Task.Run(async () =>
        {
#pragma warning disable CA5394 // Not for security: reproducible pieces.
            var random = new Random(seed);
            for (var at = 0; at < body.Length;)
            {
                var piece = Math.Min(body.Length - at, random.Next(4) == 0 ? 1 : random.Next(1, SegmentedStream.MaxPiece + 1));
#pragma warning restore CA5394
                await pipe.Writer.WriteAsync(body.AsMemory(at, piece));
                at += piece;
            }

            await pipe.Writer.CompleteAsync();
        });
        return pipe.Reader;
    }
}
