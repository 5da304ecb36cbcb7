using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// Runs the object path (<see cref="EnvelopeParser"/> then <see cref="CanonicalUtf8Writer"/>, what every strategy
/// signs) and the transcoder over the same bytes, the transcoder's delivered in random pieces, and compares answers.
/// </summary>
internal static class BothPaths
{
    public static Answer ObjectPath(byte[] body)
    {
        try
        {
            var envelope = EnvelopeParser.Parse(body);
            var output = new ArrayBufferWriter<byte>();
            CanonicalUtf8Writer.Write(envelope, output);
            return Answer.Signed(output.WrittenSpan.ToArray(), envelope.Widgets.Count);
        }
        catch (EnvelopeFormatException e)
        {
            return Answer.Refused(e);
        }
    }

    /// <summary>The transcoder's answer, with the body read in pieces chosen by <paramref name="seed"/>.</summary>
    public static Answer Transcoder(byte[] body, int seed) => Transcoder(Reader(body, seed), body.Length);

    /// <summary>The transcoder's answer for a body of <paramref name="bodyLength"/> bytes read from <paramref name="reader"/>.</summary>
    public static Answer Transcoder(PipeReader reader, long bodyLength)
    {
        var output = new ArrayBufferWriter<byte>();
        try
        {
            var summary = EnvelopeTranscoder.TranscodeAsync(reader, output).AsTask().GetAwaiter().GetResult();
            Assert.Equal(output.WrittenCount, summary.BytesWritten);
            Assert.Equal(bodyLength, summary.BodyBytes);
            return Answer.Signed(output.WrittenSpan.ToArray(), summary.WidgetCount);
        }
        catch (EnvelopeFormatException e)
        {
            return Answer.Refused(e);
        }
    }

    /// <summary>A reader of <paramref name="body"/> in pieces of 1 byte to 64 KiB chosen by <paramref name="seed"/>.</summary>
    public static PipeReader Reader(byte[] body, int seed) =>
        PipeReader.Create(new SegmentedStream(body, seed), new StreamPipeReaderOptions(bufferSize: SegmentedStream.MaxPiece, minimumReadSize: 1));

    /// <summary>Null when both paths answer the same for <paramref name="body"/>; otherwise what differs and the body.</summary>
    public static string? Difference(byte[] body, int seed)
    {
        var difference = Answer.Difference(ObjectPath(body), Transcoder(body, seed));
        return difference is null ? null : $"{difference}; body (pieces from seed {seed}): {Show(body)}";
    }

    /// <summary>Fails unless both paths answer the same for every body, listing the first few that differ.</summary>
    public static void AssertSame(IEnumerable<byte[]> bodies, int seed = 0)
    {
        var failures = new List<string>();
        var count = 0;
        foreach (var body in bodies)
        {
            var difference = Difference(body, seed + count++);
            if (difference is not null && failures.Count < 5)
            {
                failures.Add(difference);
            }
        }

        Assert.True(count > 0, "No bodies were compared.");
        Assert.True(failures.Count == 0, string.Join(Environment.NewLine, failures));
    }

    /// <inheritdoc cref="AssertSame(IEnumerable{byte[]}, int)"/>
    public static void AssertSame(IEnumerable<string> bodies, int seed = 0) => AssertSame(bodies.Select(Encoding.UTF8.GetBytes), seed);

    /// <summary>The body as text where it is printable UTF-8, shortened, for a failure message.</summary>
    public static string Show(byte[] body)
    {
        var text = Encoding.UTF8.GetString(body.AsSpan(0, Math.Min(body.Length, 400)));
        return body.Length > 400 ? text + $"… ({body.Length} bytes)" : text;
    }
}
