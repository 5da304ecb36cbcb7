using System.IO.Pipelines;
using Signing.Generation;
using Signing.Strategies;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests.Transcoding;

/// <summary>
/// The <c>transcode</c> signer against the object path's <c>utf8</c> strategy: the same signature, byte count and widget
/// count for the same body, with one key or several in one pass, whatever pieces the body arrives in.
/// </summary>
public sealed class TranscodingSignerTests
{
    private static readonly SigningKey OtherKey = new("fedcba9876543210fedcba9876543210"u8);

    [Theory]
    [InlineData(0, GeneratedText.Plain)]
    [InlineData(1, GeneratedText.Awkward)]
    [InlineData(30, GeneratedText.Awkward)]
    [InlineData(3_000, GeneratedText.Plain)]
    [InlineData(3_000, GeneratedText.Awkward)]
    public async Task Signs_what_the_object_path_signs(int widgetCount, GeneratedText text)
    {
        var body = Bodies.Canonical(widgetCount, seed: widgetCount, text);
        var expected = ObjectPath(body, TestData.Key);

        var result = await new TranscodingSigner(TestData.Key).SignAsync(Bodies.Sent(body, seed: widgetCount));

        Assert.Equal(expected, (result.Signature, result.BytesSigned, result.WidgetCount));
        Assert.Equal(body.Length, result.BodyBytes);
        Assert.False(result.IsEmptyBody);
    }

    [Fact]
    public async Task Signs_what_the_object_path_signs_for_bodies_written_any_way()
    {
        var bodies = new RandomBodies(seed: 77);
        var signer = new TranscodingSigner(TestData.Key);
        var compared = 0;
        for (var i = 0; i < 600; i++)
        {
            var body = bodies.Next();
            WidgetEnvelope envelope;
            try
            {
                envelope = EnvelopeParser.Parse(body);
            }
            catch (EnvelopeFormatException)
            {
                await Assert.ThrowsAsync<EnvelopeFormatException>(() => signer.SignAsync(Bodies.Sent(body, i)).AsTask());
                continue;
            }

            var expected = new Utf8Signer(TestData.Key).Sign(envelope);
            var result = await signer.SignAsync(Bodies.Sent(body, i));
            Assert.Equal((expected.Signature, expected.BytesSigned, envelope.Widgets.Count), (result.Signature, result.BytesSigned, result.WidgetCount));
            compared++;
        }

        Assert.True(compared > 80, $"Only {compared} of the bodies were valid.");
    }

    [Fact]
    public async Task Several_keys_sign_in_one_pass_each_as_it_would_alone()
    {
        var body = Bodies.Reversed(200, seed: 4);
        SigningKey[] keys = [TestData.Key, OtherKey, TestData.Key];

        var result = await new TranscodingSigner(keys).SignAsync(Bodies.Sent(body, seed: 1));

        Assert.Equal(keys.Select(k => ObjectPath(body, k).Signature), result.Signatures);
        Assert.NotEqual(result.Signatures[0], result.Signatures[1]);
        Assert.Equal(result.Signatures[0], result.Signature);
    }

    [Fact]
    public async Task An_empty_body_is_reported_as_such_and_not_signed()
    {
        var pipe = new Pipe();
        await pipe.Writer.CompleteAsync();

        var result = await new TranscodingSigner([TestData.Key, OtherKey]).SignAsync(pipe.Reader);

        Assert.True(result.IsEmptyBody);
        Assert.Equal(0, result.BodyBytes);
        Assert.Empty(result.Signatures);
        var unsigned = Assert.Throws<InvalidOperationException>(() => result.Signature);
        Assert.Contains("empty", unsigned.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_signer_needs_at_least_one_key_and_no_missing_one()
    {
        Assert.Throws<ArgumentNullException>(() => new TranscodingSigner((IReadOnlyList<SigningKey>)null!));
        Assert.Throws<ArgumentOutOfRangeException>(() => new TranscodingSigner(Array.Empty<SigningKey>()));
        Assert.Throws<ArgumentNullException>(() => new TranscodingSigner([TestData.Key, null!]));
    }

    [Theory]
    [InlineData(" ")]
    [InlineData(" \r\n\t ")]
    public async Task A_body_of_whitespace_is_refused_as_the_object_path_refuses_it(string body)
    {
        var bytes = CanonicalJson.Utf8.GetBytes(body);
        var expected = Assert.Throws<EnvelopeFormatException>(() => EnvelopeParser.Parse(bytes));

        var refused = await Assert.ThrowsAsync<EnvelopeFormatException>(() => new TranscodingSigner(TestData.Key).SignAsync(Bodies.Sent(bytes, seed: 2)).AsTask());

        Assert.Equal((expected.Message, expected.Path, expected.Line, expected.Position), (refused.Message, refused.Path, refused.Line, refused.Position));
    }

    [Fact]
    public async Task A_failed_sign_does_not_change_the_next_signature_on_the_same_thread()
    {
        // Read synchronously, so every sign runs on this thread and would meet any state a failed sign left behind.
        var body = Bodies.Canonical(400, seed: 5, GeneratedText.Awkward);
        var broken = body.ToArray();
        broken[^100] = 0x01;
        var signer = new TranscodingSigner([TestData.Key, OtherKey]);
        var expected = await signer.SignAsync(new SteppedPipeReader(body, 4096));

        for (var i = 0; i < 3; i++)
        {
            await Assert.ThrowsAsync<EnvelopeFormatException>(() => signer.SignAsync(new SteppedPipeReader(broken, 4096)).AsTask());
            Assert.Equal(expected.Signatures, (await signer.SignAsync(new SteppedPipeReader(body, 4096))).Signatures);
        }
    }

    [Fact]
    public async Task A_token_longer_than_the_pipes_pause_threshold_is_waited_for_without_stalling()
    {
        // The whole token must be in the buffer; a pipe with back-pressure (64 KB by default) must still deliver it.
        var body = CanonicalJson.Utf8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget("property0", "\"" + new string('a', 300_000) + "\"")));
        var pipe = new Pipe(new PipeOptions(useSynchronizationContext: false));
        var writing = Task.Run(async () =>
        {
            for (var at = 0; at < body.Length; at += 4096)
            {
                await pipe.Writer.WriteAsync(body.AsMemory(at, Math.Min(4096, body.Length - at)));
            }

            await pipe.Writer.CompleteAsync();
        });

        var result = await new TranscodingSigner(TestData.Key).SignAsync(pipe.Reader).AsTask().WaitAsync(TimeSpan.FromSeconds(30));

        await writing;
        Assert.Equal(ObjectPath(body, TestData.Key), (result.Signature, result.BytesSigned, result.WidgetCount));
    }

    [Fact]
    public async Task A_long_token_in_small_pieces_is_tokenized_a_logarithmic_number_of_times()
    {
        // A reader that stops inside a token reads it again from its start; waiting each time for twice as many bytes
        // keeps that linear in the token's length rather than quadratic.
        var body = CanonicalJson.Utf8.GetBytes(EnvelopeJson.Envelope(EnvelopeJson.Widget("property0", "\"" + new string('a', 1_000_000) + "\"")));
        var reader = new SteppedPipeReader(body, segmentBytes: 16);

        var result = await new TranscodingSigner(TestData.Key).SignAsync(reader);

        Assert.Equal(ObjectPath(body, TestData.Key), (result.Signature, result.BytesSigned, result.WidgetCount));
        Assert.InRange(reader.Reads, 1, 64);
    }

    [Fact]
    public async Task Concurrent_signs_each_get_their_own_signature()
    {
        var bodies = Enumerable.Range(0, 8).Select(i => i % 2 == 0 ? Bodies.Canonical(300, seed: i, GeneratedText.Awkward) : Bodies.Reversed(300, seed: i)).ToArray();
        var expected = bodies.Select(b => ObjectPath(b, TestData.Key).Signature).ToArray();
        var signer = new TranscodingSigner(TestData.Key);

        var results = await Task.WhenAll(Enumerable.Range(0, 64).Select(i => signer.SignAsync(Bodies.Sent(bodies[i % 8], seed: i)).AsTask()));

        Assert.All(results.Select((r, i) => (r.Signature, Expected: expected[i % 8])), pair => Assert.Equal(pair.Expected, pair.Signature));
    }

    private static (string Signature, long BytesSigned, int WidgetCount) ObjectPath(byte[] body, SigningKey key)
    {
        var envelope = EnvelopeParser.Parse(body);
        var signed = new Utf8Signer(key).Sign(envelope);
        return (signed.Signature, signed.BytesSigned, envelope.Widgets.Count);
    }
}
