using System.Buffers;

namespace Signing;

/// <summary>
/// The most bytes the canonical document of a parsed body can take, known before any of it is written, so that a
/// request is charged for the document it is about to hold rather than for one as long as its body.
/// </summary>
/// <remarks>
/// A value's canonical form is no longer than any spelling of it that <see cref="EnvelopeParser"/> accepts (escapes
/// and whitespace only shorten it, a Guid is 36 characters either way, an instant's offset becomes a shorter <c>Z</c>),
/// with two exceptions, both bounded here: the three characters Newtonsoft escapes that a JSON string may carry raw,
/// U+0085 (2 bytes raw, 6 escaped) and U+2028 and U+2029 (3 bytes raw, 6 escaped), so a body of them grows up to three
/// times; and an instant sent without its time or its seconds, which the canonical form spells out
/// (<c>"2024-03-10"</c> becomes <c>"2024-03-10T00:00:00Z"</c>).
/// </remarks>
public static class CanonicalLength
{
    /// <summary>
    /// The most one instant's canonical form exceeds the spelling it was read from: 10 bytes, for a date alone.
    /// </summary>
    public const int InstantGrowth = 10;

    /// <summary>
    /// The fewest bytes a widget the parser accepts can take: every member with its shortest spelling (empty strings,
    /// the Guid's 36 characters, a date alone), so a body holds at most its length over this many widgets.
    /// </summary>
    public const int MinWidgetBytes = 221;

    // The lead bytes of U+0085 (C2 85) and of U+2028 and U+2029 (E2 80 A8, E2 80 A9), which other characters share.
    private static ReadOnlySpan<byte> RawEscapeLeads => [0xC2, 0xE2];

    /// <summary>
    /// The most bytes the canonical document of any body of <paramref name="bodyBytes"/> can take when it carries no raw
    /// U+0085, U+2028 or U+2029: what a strategy's body limit is worked out for, so that every such body within it is
    /// taken. Never less than <see cref="AtMost"/> of such a body.
    /// </summary>
    /// <param name="bodyBytes">The body's length.</param>
    /// <returns>The bound, in bytes.</returns>
    public static long AtMostWithoutRawEscapes(long bodyBytes) => bodyBytes + (bodyBytes / MinWidgetBytes * InstantGrowth);

    /// <summary>
    /// The most bytes the canonical document of <paramref name="body"/> can take, once it has been parsed into an
    /// envelope of <paramref name="widgetCount"/> widgets: never less than the document, and at most 10 bytes a widget
    /// more than it for a body already canonical.
    /// </summary>
    /// <param name="body">The request body, as UTF-8 JSON the parser accepted.</param>
    /// <param name="widgetCount">How many widgets it holds.</param>
    /// <returns>The bound, in bytes.</returns>
    public static long AtMost(ReadOnlySequence<byte> body, int widgetCount)
    {
        var most = body.Length + (long)widgetCount * InstantGrowth;
        var reader = new SequenceReader<byte>(body);
        while (reader.TryAdvanceToAny(RawEscapeLeads, advancePastDelimiter: false))
        {
            if (reader.IsNext("\u0085"u8, advancePast: true))
            {
                most += 4;
            }
            else if (reader.IsNext("\u2028"u8, advancePast: true) || reader.IsNext("\u2029"u8, advancePast: true))
            {
                most += 3;
            }
            else
            {
                reader.Advance(1);
            }
        }

        return most;
    }
}
