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
    /// <summary>The settings the object path reads with; the transcoder reads tokens and dates with the same.</summary>
    internal static JsonSerializerOptions Options { get; } = new()
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

    /// <summary>
    /// What <see cref="Options"/> asks of the tokenizer itself (no comments, no trailing commas, the depth limit), for
    /// code that tokenizes without the serializer.
    /// </summary>
    internal static JsonReaderOptions ReaderOptions { get; } = new()
    {
        AllowTrailingCommas = Options.AllowTrailingCommas,
        CommentHandling = Options.ReadCommentHandling,
        MaxDepth = Options.MaxDepth,
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
            throw EnvelopeErrors.FromJson(e);
        }

        if (envelope is null)
        {
            throw EnvelopeErrors.NullBody();
        }

        for (var i = 0; i < envelope.Widgets.Count; i++)
        {
            if (envelope.Widgets[i] is null)
            {
                throw EnvelopeErrors.NullWidget(i);
            }
        }

        return envelope;
    }
}
