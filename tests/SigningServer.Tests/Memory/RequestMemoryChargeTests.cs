using Signing;
using Signing.Http.Memory;

namespace SigningServer.Tests.Memory;

/// <summary>
/// The charge <see cref="RequestMemory"/> puts on a request, worked out by hand from its documented figures: while the
/// body arrives, the whole blocks it has begun; then two blocks and two 16 KiB chunks whatever the size, and per body
/// byte the body (1) and the envelope (2), per byte of canonical document what the strategy holds, or 2 per body byte
/// for <c>transcode</c>; a fraction of a byte is charged whole.
/// </summary>
public sealed class RequestMemoryChargeTests
{
    [Theory]
    [InlineData(1024, 34_816L)]
    [InlineData(128 * 1024, 294_912L)]
    public void Fixed_part_is_two_blocks_and_two_16_KiB_chunks(int blockSize, long expected)
    {
        Assert.Equal(expected, RequestMemory.FixedBytes(blockSize));
    }

    [Theory]
    [InlineData(0L, 34_816L)]
    [InlineData(1L, 34_818L)]
    [InlineData(1000L, 36_816L)]
    public void Transcode_is_charged_twice_its_body_on_top(long bodyBytes, long expected)
    {
        Assert.Equal(expected, RequestMemory.ForTranscode(bodyBytes, 1024));
    }

    [Theory]
    [InlineData(1L, 1024L)]
    [InlineData(1023L, 1024L)]
    [InlineData(1024L, 1024L)]
    [InlineData(1025L, 2048L)]
    public void An_arriving_body_is_charged_the_whole_blocks_it_has_begun(long bodyBytes, long expected)
    {
        Assert.Equal(expected, RequestMemory.ForArrivedBody(bodyBytes, 1024));
    }

    [Theory]
    [InlineData(0L, 34_816L)]
    [InlineData(1L, 34_819L)]
    [InlineData(1000L, 37_816L)]
    public void Parsing_is_charged_the_body_and_its_envelope_three_times_the_body_on_top(long bodyBytes, long expected)
    {
        Assert.Equal(expected, RequestMemory.ForParse(bodyBytes, 1024));
    }

    [Theory]
    [InlineData(0.0, 0L, 0L, 34_816L)]
    [InlineData(0.0, 1000L, 3000L, 37_816L)]
    [InlineData(1.0, 1000L, 1000L, 38_816L)]
    [InlineData(1.0, 1000L, 3000L, 40_816L)]
    [InlineData(1.5, 1000L, 900L, 39_166L)]
    [InlineData(0.25, 1L, 1L, 34_820L)]
    [InlineData(0.25, 3L, 3L, 34_826L)]
    public void An_envelope_strategy_is_charged_body_and_envelope_per_body_byte_and_what_it_holds_per_document_byte_rounded_up(
        double held, long bodyBytes, long documentBytes, long expected)
    {
        Assert.Equal(expected, RequestMemory.For(new Holding(held), bodyBytes, documentBytes, 1024));
    }

    [Fact]
    public void A_strategy_is_required()
    {
        Assert.Equal("strategy", Assert.Throws<ArgumentNullException>(() => RequestMemory.For(null!, 1, 1, 1024)).ParamName);
    }

    // A strategy that only says what it holds; the charge never signs.
    private sealed class Holding(double heldBytesPerDocumentByte) : ISigningStrategy
    {
        public string Name => "holding";

        public double HeldBytesPerDocumentByte => heldBytesPerDocumentByte;

        public SignResult Sign(WidgetEnvelope envelope) => throw new NotSupportedException();
    }
}
