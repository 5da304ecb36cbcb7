using System.Globalization;
using System.Text.Json;

namespace Signing;

/// <summary>
/// How a body that is not an envelope is reported, whichever reader found it: <see cref="EnvelopeParser"/> and the
/// transcoder both end here, so the same fault in the same bytes reads the same to the caller.
/// </summary>
internal static class EnvelopeErrors
{
    // Messages can quote a caller's property name; a bounded excerpt keeps 1 MB out of responses.
    private const int MaxMessageLength = 200;

    /// <summary>
    /// A System.Text.Json failure as the caller sees it: the message without System.Text.Json's trailing location,
    /// the path without its <c>$.</c>, and the line and position counted from 1.
    /// </summary>
    public static EnvelopeFormatException FromJson(JsonException e) =>
        new(
            Describe(e.Message),
            Excerpt(e.Path is null or "$" ? null : e.Path.StartsWith("$.", StringComparison.Ordinal) ? e.Path[2..] : e.Path),
            e.LineNumber + 1,
            e.BytePositionInLine + 1,
            e);

    /// <summary>The body is <c>null</c>, a valid JSON value that is not an object.</summary>
    public static EnvelopeFormatException NullBody() => new("The body must be a JSON object of the form {\"widgets\":[…]}.");

    /// <summary>The first widget that is <c>null</c>, found once the whole body has been read.</summary>
    public static EnvelopeFormatException NullWidget(int index) =>
        new("A widget must be an object, not null.", string.Create(CultureInfo.InvariantCulture, $"widgets[{index}]"), null, null, null);

    // System.Text.Json ends its messages with " Path: … | LineNumber: … | BytePositionInLine: …."; those travel as
    // separate fields instead.
    private static string Describe(string message)
    {
        var end = message.IndexOf(" Path: ", StringComparison.Ordinal);
        // Stryker disable once Equality : equivalent, as no System.Text.Json message starts with its location, so > 0 reads the same.
        return Excerpt(end >= 0 ? message[..end] : message)!;
    }

    private static string? Excerpt(string? text) =>
        text is null || text.Length <= MaxMessageLength ? text : string.Concat(text.AsSpan(0, MaxMessageLength), "…");
}
