using System.Text.Json;
using System.Text.Json.Serialization;

namespace Signing;

/// <summary>
/// Reads <c>createdUtc</c> as an ISO 8601 string and hands back a UTC <see cref="DateTime"/>: with an offset it is
/// converted exactly (no detour through the server's local time), without one it is taken as UTC. Anything else,
/// such as <c>"03/10/2024"</c> or a number, is an error rather than a guess.
/// </summary>
internal sealed class UtcInstantConverter : JsonConverter<DateTime>
{
    public override DateTime Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        TryRead(ref reader, out var value)
            ? value
            : throw new JsonException("The value must be an ISO 8601 date and time string, such as \"2024-03-10T10:34:56.789Z\".");

    /// <summary>
    /// Reads the instant the current token holds, as <see cref="Read"/> does, without throwing for one it refuses: the
    /// transcoder's fast path tries it and leaves a refusal to the slow path, which reports it.
    /// </summary>
    public static bool TryRead(ref Utf8JsonReader reader, out DateTime value)
    {
        if (reader.TokenType != JsonTokenType.String || !reader.TryGetDateTime(out value))
        {
            value = default;
            return false;
        }

        value = value.Kind switch
        {
            DateTimeKind.Utc => value,
            DateTimeKind.Unspecified => DateTime.SpecifyKind(value, DateTimeKind.Utc),
            _ => reader.GetDateTimeOffset().UtcDateTime,
        };
        return true;
    }

    public override void Write(Utf8JsonWriter writer, DateTime value, JsonSerializerOptions options) =>
        throw new NotSupportedException("Input only: the canonical output follows Newtonsoft.Json's rules (see CanonicalJson).");
}
