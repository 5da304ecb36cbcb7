using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// How the transcoder reads its body: it leaves the reader advanced past all of it, holds a few KB at a time whatever
/// the body's length, waits for no more than a long token or an error's context needs, and passes a canceled read on.
/// </summary>
public sealed class TranscoderReadingTests
{
    private const int Segment = 4096;

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(200)]
    public async Task After_a_success_the_reader_is_advanced_past_the_whole_body(int widgets)
    {
        var body = widgets == 0 ? [] : Bodies.Reversed(widgets, seed: widgets);
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0));
        for (var at = 0; at < body.Length; at += Segment)
        {
            await pipe.Writer.WriteAsync(body.AsMemory(at, Math.Min(Segment, body.Length - at)));
        }

        await pipe.Writer.CompleteAsync();

        var summary = await EnvelopeTranscoder.TranscodeAsync(pipe.Reader, new ArrayBufferWriter<byte>());

        Assert.Equal(widgets, summary.WidgetCount);
        Assert.True(pipe.Reader.TryRead(out var rest), "A read is still in progress: the reader was not advanced.");
        Assert.True(rest.Buffer.IsEmpty && rest.IsCompleted);
    }

    [Fact]
    public async Task A_long_body_is_held_a_few_kilobytes_at_a_time()
    {
        var body = Bodies.Canonical(3_000, seed: 1);
        var reader = new SteppedPipeReader(body, Segment);

        await EnvelopeTranscoder.TranscodeAsync(reader, new ArrayBufferWriter<byte>());

        Assert.Equal(body.Length, reader.Revealed);
        Assert.InRange(reader.LargestWindow, Segment, 2 * Segment);
    }

    [Fact]
    public async Task A_long_token_is_waited_for_without_reading_far_beyond_it()
    {
        var token = 64 * 1024;
        var longWidget = EnvelopeJson.Widget("property0", "\"" + new string('a', token) + "\"");
        var rest = Encoding.UTF8.GetString(Bodies.Canonical(3_000, seed: 2))["{\"widgets\":[".Length..];
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[" + longWidget + "," + rest);
        var reader = new SteppedPipeReader(body, Segment);

        var summary = await EnvelopeTranscoder.TranscodeAsync(reader, new ArrayBufferWriter<byte>());

        Assert.Equal(3_001, summary.WidgetCount);
        Assert.InRange(reader.LargestWindow, token, 3 * token);
    }

    [Fact]
    public async Task A_syntax_error_is_reported_with_the_context_after_it_not_the_rest_of_the_body()
    {
        var valid = Encoding.UTF8.GetString(Bodies.Canonical(3_000, seed: 3));
        var error = valid.IndexOf("},{", StringComparison.Ordinal) + 2;
        var body = Encoding.UTF8.GetBytes(valid[..error] + "x" + valid[error..]);
        var reader = new SteppedPipeReader(body, Segment);

        await Assert.ThrowsAsync<EnvelopeFormatException>(() => EnvelopeTranscoder.TranscodeAsync(reader, new ArrayBufferWriter<byte>()).AsTask());

        Assert.InRange(reader.Revealed, error + TranscodeSession.SyntaxContextBytes, error + TranscodeSession.SyntaxContextBytes + (2 * Segment));
    }

    [Fact]
    public async Task A_syntax_error_before_the_end_is_reported_after_reading_more_from_a_real_pipe()
    {
        // A pipe refuses a read before the last one was advanced: the error's context is read the way any read is.
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[x" + new string(' ', 3000) + "]}");
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0));
        await pipe.Writer.WriteAsync(body.AsMemory(0, 100));

        var transcoding = EnvelopeTranscoder.TranscodeAsync(pipe.Reader, new ArrayBufferWriter<byte>()).AsTask();
        await pipe.Writer.WriteAsync(body.AsMemory(100));
        await pipe.Writer.CompleteAsync();

        var refused = await Assert.ThrowsAsync<EnvelopeFormatException>(() => transcoding);
        Assert.Equal(Answer.Refused(refused), BothPaths.ObjectPath(body));
    }

    [Fact]
    public async Task A_read_canceled_by_the_readers_owner_says_so()
    {
        var pipe = new Pipe();
        pipe.Reader.CancelPendingRead();

        var canceled = await Assert.ThrowsAsync<OperationCanceledException>(() => EnvelopeTranscoder.TranscodeAsync(pipe.Reader, new ArrayBufferWriter<byte>()).AsTask());

        Assert.Contains("read of the body was canceled", canceled.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_missing_reader_or_output_is_refused()
    {
        await Assert.ThrowsAsync<ArgumentNullException>(() => EnvelopeTranscoder.TranscodeAsync(null!, new ArrayBufferWriter<byte>()).AsTask());
        await Assert.ThrowsAsync<ArgumentNullException>(() => EnvelopeTranscoder.TranscodeAsync(new Pipe().Reader, null!).AsTask());
    }
}
