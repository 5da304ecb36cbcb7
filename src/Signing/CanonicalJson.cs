using System.Globalization;
using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;

namespace Signing;

/// <summary>
/// The one definition of the bytes every strategy signs: Newtonsoft.Json, camelCase names, no indentation, UTF-8
/// without a byte order mark.
/// </summary>
/// <remarks>
/// Strategies must share this instance rather than <c>JsonConvert.DefaultSettings</c>: the default settings apply to
/// <c>JsonConvert.SerializeObject</c> only, so the <c>string</c> strategy would sign different bytes from the stream
/// strategies the day anyone set them.
/// </remarks>
public static class CanonicalJson
{
    /// <summary>
    /// How deep a request may nest (see <see cref="EnvelopeParser"/>). The envelope needs three levels; the bound is so
    /// a hostile body cannot make the reader recurse without end.
    /// </summary>
    public const int MaxDepth = 64;

    /// <summary>
    /// The output encoding: UTF-8 without a byte order mark, and a lone surrogate becomes U+FFFD exactly as
    /// <see cref="Encoding.UTF8"/> (which the <c>string</c> strategy uses) makes it, so every strategy writes the same bytes.
    /// </summary>
    public static UTF8Encoding Utf8 { get; } = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: false);

    /// <summary>
    /// The settings behind <see cref="Serializer"/>; every property that shapes the output is set explicitly so that
    /// nothing falls back to a global default.
    /// </summary>
    public static JsonSerializerSettings Settings { get; } = new()
    {
        ContractResolver = new CamelCasePropertyNamesContractResolver(),
        Formatting = Formatting.None,
        Culture = CultureInfo.InvariantCulture,
        DateFormatHandling = DateFormatHandling.IsoDateFormat,
        // Newtonsoft's default turns "+02:00" into the server's local time, so two servers in different zones would
        // sign different bytes for one request. UTC on read and on write makes the bytes the same everywhere.
        DateTimeZoneHandling = DateTimeZoneHandling.Utc,
        StringEscapeHandling = StringEscapeHandling.Default,
        NullValueHandling = NullValueHandling.Include,
    };

    /// <summary>The shared serializer; Newtonsoft's serializer is thread-safe once configured.</summary>
    public static JsonSerializer Serializer { get; } = JsonSerializer.Create(Settings);

    /// <summary>
    /// Writes <paramref name="envelope"/> to <paramref name="utf8Output"/> as canonical JSON through a
    /// <see cref="StreamWriter"/>, the write-up's way; leaves the stream open.
    /// </summary>
    public static void Write(WidgetEnvelope envelope, Stream utf8Output)
    {
        // Stryker disable once Unary : a buffer of one character writes the same bytes, only slower.
        using var text = new StreamWriter(utf8Output, Utf8, bufferSize: -1, leaveOpen: true);
        using var json = new JsonTextWriter(text);
        Serializer.Serialize(json, envelope);
    }
}
