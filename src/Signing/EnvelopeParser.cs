using System.Text.Json;
using System.Text.Json.Serialization;

namespace Signing;

/// <summary>
/// Reads an envelope from UTF-8 JSON, strictly: what cannot be signed faithfully is an
/// <see cref="EnvelopeFormatException"/>, never a silently repaired document.
/// </summary>
/// <remarks>
/// Input is read with System.Text.Json, output written with Newtonsoft.Json. Newtonsoft's reader is lenient by
/// design (comments, trailing commas, single quotes, <c>5</c> accepted as <c>"5"</c>, names in any case, the last of
/// two duplicate names winning, dates in any format <see cref="DateTime.Parse(string)"/> knows), and each of those
/// would sign something other than what the caller sent. System.Text.Json refuses all of them, and also invalid
/// UTF-8, a byte order mark and lone surrogates.
/// </remarks>
public static class EnvelopeParser
{
    // Newtonsoft-free messages can still quote a caller's property name; a bounded excerpt keeps 1 MB out of responses.
    private const int MaxMessageLength = 200;

    private static readonly JsonSerializerOptions Options = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        PropertyNameCaseInsensitive = false,
        UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow,
        AllowDuplicateProperties = false,
        RespectNullableAnnotations = true,
        RespectRequiredConstructorParameters = true,
        NumberHandling = JsonNumberHandling.Strict,
        ReadCommentHandling = JsonCommentHandling.Disallow,
        AllowTrailingCommas = false,
        MaxDepth = CanonicalJson.MaxDepth,
        Converters = { new UtcInstantConverter() },
    };

    /// <summary>Parses one envelope from <paramref name="utf8Json"/>, the whole body.</summary>
    /// <exception cref="EnvelopeFormatException">The body is not a valid envelope.</exception>
    public static WidgetEnvelope Parse(ReadOnlySpan<byte> utf8Json)
    {
        WidgetEnvelope? envelope;
        try
        {
            envelope = JsonSerializer.Deserialize<WidgetEnvelope>(utf8Json, Options);
        }
        catch (JsonException e)
        {
            throw new EnvelopeFormatException(
                Describe(e.Message),
                Excerpt(e.Path is null or "$" ? null : e.Path.StartsWith("$.", StringComparison.Ordinal) ? e.Path[2..] : e.Path),
                e.LineNumber + 1,
                e.BytePositionInLine + 1,
                e);
        }

        if (envelope is null)
        {
            throw new EnvelopeFormatException("The body must be a JSON object of the form {\"widgets\":[…]}.");
        }

        for (var i = 0; i < envelope.Widgets.Count; i++)
        {
            if (envelope.Widgets[i] is null)
            {
                throw new EnvelopeFormatException("A widget must be an object, not null.", $"widgets[{i}]", null, null, null);
            }
        }

        return envelope;
    }

    // System.Text.Json ends its messages with " Path: … | LineNumber: … | BytePositionInLine: …."; those travel as
    // separate fields instead.
    private static string Describe(string message)
    {
        var end = message.IndexOf(" Path: ", StringComparison.Ordinal);
        return Excerpt(end >= 0 ? message[..end] : message)!;
    }

    private static string? Excerpt(string? text) =>
        text is null || text.Length <= MaxMessageLength ? text : string.Concat(text.AsSpan(0, MaxMessageLength), "…");
}
