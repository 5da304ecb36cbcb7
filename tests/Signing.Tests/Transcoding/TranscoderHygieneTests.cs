using System.Buffers;
using System.IO.Pipelines;
using Signing.Generation;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// Pooled memory goes back on every path (success, refusal, a failing connection, cancellation), failures from the
/// reader pass through as they are, and a body in canonical order needs no memory beyond the hash chunk.
/// </summary>
public sealed class TranscoderHygieneTests
{
    [Fact]
    public async Task A_body_in_canonical_order_rents_only_the_hash_chunk()
    {
        var pool = new CountingArrayPool();

        await new TranscodingSigner(TestData.Key, pool).SignAsync(new SteppedPipeReader(Bodies.Canonical(3_000, seed: 1), 4096));

        Assert.Equal(1, pool.Rents);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task Everything_rented_goes_back_after_success_and_after_every_kind_of_refusal()
    {
        var pool = new CountingArrayPool();
        var signer = new TranscodingSigner(TestData.Key, pool);
        // Awkward text, so that the widgets are tokenized and their members held back in rented memory.
        var reversed = Bodies.Reversed(50, seed: 2, GeneratedText.Awkward);
        var escaped = Bodies.Canonical(50, seed: 3, GeneratedText.Awkward);

        await signer.SignAsync(Bodies.Sent(reversed, seed: 1));
        await signer.SignAsync(Bodies.Sent(escaped, seed: 2));
        Assert.True(pool.Rents > 2, "Held-back members and escaped text should have rented memory.");
        Assert.Equal(0, pool.Outstanding);

        // Refused while members are held back, inside escaped text, at a syntax error read again with more context, at
        // a duplicate, and at the end.
        byte[][] refused =
        [
            [.. reversed[..(reversed.Length / 2)], .. "\"property0\":5"u8],
            [.. escaped[..(escaped.Length / 2)], .. "\\uD800\"}]}"u8],
            [.. reversed[..(reversed.Length / 2)], .. "nul"u8, .. new byte[5000]],
            CanonicalJson.Utf8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget(EnvelopeJson.Members.Reverse().Append("property5")))),
            [.. reversed, .. "x"u8],
        ];
        foreach (var body in refused)
        {
            await Assert.ThrowsAsync<EnvelopeFormatException>(() => signer.SignAsync(Bodies.Sent(body, seed: body.Length)).AsTask());
            Assert.Equal(0, pool.Outstanding);
        }
    }

    [Theory]
    [InlineData(256, 0)]
    [InlineData(257, 1)]
    public async Task Escaped_text_longer_than_the_stack_buffer_is_unescaped_in_rented_memory_which_goes_back(int length, int rents)
    {
        // The raw value, escape included, is exactly length bytes.
        var value = "\"\\u0041" + new string('a', length - 6) + "\"";
        var body = CanonicalJson.Utf8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget("property0", value)));
        var pool = new CountingArrayPool();

        await EnvelopeTranscoder.TranscodeAsync(new SteppedPipeReader(body, 4096), new ArrayBufferWriter<byte>(), pool);

        Assert.Equal(rents, pool.Rents);
        Assert.Equal(0, pool.Outstanding);
    }

    [Theory]
    [InlineData(128, 0)]
    [InlineData(129, 1)]
    public async Task An_escaped_name_longer_than_the_stack_buffer_is_unescaped_in_rented_memory_which_goes_back(int length, int rents)
    {
        var name = "\\u0041" + new string('a', length - 6);
        var body = CanonicalJson.Utf8.GetBytes(EnvelopeJson.Envelope("{\"" + name + "\":\"x\"}"));
        var pool = new CountingArrayPool();

        var refused = await Assert.ThrowsAsync<EnvelopeFormatException>(
            () => EnvelopeTranscoder.TranscodeAsync(new SteppedPipeReader(body, 4096), new ArrayBufferWriter<byte>(), pool).AsTask());

        Assert.Contains("could not be mapped", refused.Message, StringComparison.Ordinal);
        Assert.Equal(rents, pool.Rents);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task A_failing_connection_passes_through_as_it_is_and_returns_what_was_rented()
    {
        var pool = new CountingArrayPool();
        var failure = new IOException("The client reset the connection.");
        var body = Bodies.Reversed(100, seed: 6);
        var reader = PipeReader.Create(new ThrowingStream(body[..(body.Length / 2)], failure));

        var thrown = await Assert.ThrowsAsync<IOException>(() => new TranscodingSigner(TestData.Key, pool).SignAsync(reader).AsTask());

        Assert.Same(failure, thrown);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task Cancellation_while_waiting_for_the_rest_of_the_body_is_honoured()
    {
        var pool = new CountingArrayPool();
        var body = Bodies.Reversed(100, seed: 7);
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(body.AsMemory(0, body.Length / 2));
        using var cancellation = new CancellationTokenSource();

        var signing = new TranscodingSigner(TestData.Key, pool).SignAsync(pipe.Reader, cancellation.Token).AsTask();
        await Task.Delay(50);
        Assert.False(signing.IsCompleted);
        await cancellation.CancelAsync();

        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => signing);
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task A_read_canceled_by_the_reader_owner_stops_the_sign()
    {
        var pool = new CountingArrayPool();
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync("{\"widgets\":["u8.ToArray());

        var signing = new TranscodingSigner(TestData.Key, pool).SignAsync(pipe.Reader).AsTask();
        await Task.Delay(50);
        pipe.Reader.CancelPendingRead();

        await Assert.ThrowsAsync<OperationCanceledException>(() => signing);
        Assert.Equal(0, pool.Outstanding);
    }
}
