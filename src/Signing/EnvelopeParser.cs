using System.Text.Json;
using System.Text.Json.Serialization;
using Microsoft.IO;

namespace Signing;

/// <summary>
/// Reads an envelope from UTF-8 JSON, strictly: what cannot be signed faithfully is an
/// <see cref="EnvelopeFormatException"/>, never a silently repaired document.
/// </summary>
/// <remarks>
/// Input is read with System.Text.Json; the output follows Newtonsoft.Json's rules (<see cref="CanonicalJson"/>). Newtonsoft's reader is lenient by
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
        // Stryker disable once Boolean : equivalent today, as no type read here has constructor parameters (required init
        // properties are enforced either way); kept so that a type that gains some is held to the same rule.
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

        return Checked(envelope);
    }

    /// <summary>
    /// Parses one envelope from <paramref name="body"/>, the whole body as the pool holds it: in blocks, never copied
    /// into one array. A body of one block is parsed as a span; a longer one is read through the stream, which
    /// System.Text.Json parses with the same rules, the same messages and the same paths, with one exception of its
    /// own: it reads a value ahead whole before converting it, so a value nested past <see cref="CanonicalJson.MaxDepth"/>
    /// where a string belongs is reported as too deep instead of as the wrong type (tests/SigningServer.Tests/Reading/BlockParsingTests.cs).
    /// </summary>
    /// <exception cref="EnvelopeFormatException">The body is not a valid envelope.</exception>
    public static WidgetEnvelope Parse(RecyclableMemoryStream body)
    {
        ArgumentNullException.ThrowIfNull(body);
        var blocks = body.GetReadOnlySequence();

        // Stryker disable once Block : the stream path below gives the same envelope or error (checked for every body
        // tried, deep nesting where a string belongs included); the span path is there for speed.
        if (blocks.IsSingleSegment)
        {
            return Parse(blocks.FirstSpan);
        }

        // The stream reader skips a leading UTF-8 byte order mark, which the span reader refuses; parsing the mark
        // alone raises the span reader's own error for it. (A block is far longer than the mark.)
        if (blocks.FirstSpan.StartsWith(Utf8ByteOrderMark))
        {
            return Parse(Utf8ByteOrderMark);
        }

        WidgetEnvelope? envelope;
        try
        {
            body.Position = 0;
            envelope = JsonSerializer.Deserialize<WidgetEnvelope>(body, Options);
        }
        catch (JsonException e)
        {
            throw EnvelopeErrors.FromJson(e);
        }

        return Checked(envelope);
    }

    private static ReadOnlySpan<byte> Utf8ByteOrderMark => [0xEF, 0xBB, 0xBF];

    private static WidgetEnvelope Checked(WidgetEnvelope? envelope)
    {
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
