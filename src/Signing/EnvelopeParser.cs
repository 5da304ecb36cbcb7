using System.Text;
using Newtonsoft.Json;

namespace Signing;

/// <summary>
/// Reads an envelope from UTF-8 JSON with the canonical settings, strictly: what cannot be signed faithfully is an
/// <see cref="EnvelopeFormatException"/>, never a silently repaired document.
/// </summary>
public static class EnvelopeParser
{
    // Newtonsoft's messages can quote the caller's value; a bounded excerpt keeps a 1 MB string out of responses.
    private const int MaxMessageLength = 200;

    // Strict on input: invalid bytes are the caller's mistake to hear about, not something to sign as U+FFFD.
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Parses <paramref name="utf8Json"/>; leaves the stream open.</summary>
    /// <exception cref="EnvelopeFormatException">The body is not a valid envelope.</exception>
    public static WidgetEnvelope Parse(Stream utf8Json)
    {
        // No byte order mark detection: a BOM is not JSON (RFC 8259, section 8.1) and would not be signed.
        using var text = new StreamReader(utf8Json, StrictUtf8, detectEncodingFromByteOrderMarks: false, bufferSize: 4096, leaveOpen: true);
        using var reader = new JsonTextReader(text);
        WidgetEnvelope? envelope;
        try
        {
            envelope = CanonicalJson.Serializer.Deserialize<WidgetEnvelope>(reader);
        }
        catch (JsonReaderException e)
        {
            throw new EnvelopeFormatException("Malformed JSON: " + Describe(e.Message), e.Path, e.LineNumber, e.LinePosition, e);
        }
        catch (JsonSerializationException e)
        {
            throw new EnvelopeFormatException("The JSON does not match the envelope: " + Describe(e.Message), e.Path, e.LineNumber, e.LinePosition, e);
        }
        catch (DecoderFallbackException e)
        {
            throw new EnvelopeFormatException("The body is not valid UTF-8.", e);
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

    // Newtonsoft ends its messages with " Path '…', line …, position …."; those travel as separate fields instead.
    private static string Describe(string message)
    {
        var end = message.IndexOf(" Path '", StringComparison.Ordinal);
        var reason = end >= 0 ? message[..end] : message;
        return reason.Length <= MaxMessageLength ? reason : string.Concat(reason.AsSpan(0, MaxMessageLength), "…");
    }
}
