using System.Buffers;
using System.Globalization;
using System.Text.Json;

namespace Signing.Transcoding;

/// <content>
/// Where in the body: the JSON path, line and column that the errors report, and the counting of line feeds behind them.
/// </content>
internal sealed partial class TranscodeSession
{
    private string Path() => _phase switch
    {
        TranscodePhase.WidgetsValue => "$.widgets",
        TranscodePhase.WidgetList or TranscodePhase.WidgetMember => string.Create(CultureInfo.InvariantCulture, $"$.widgets[{_index}]"),
        TranscodePhase.WidgetValue => string.Create(CultureInfo.InvariantCulture, $"$.widgets[{_index}].{WidgetMembers.Name(_member)}"),
        _ => "$",
    };

    private TextLocation At(ref Utf8JsonReader reader, string? member = null)
    {
        var path = member is null ? Path() : TranscodeErrors.Member(Path(), member);
        var lines = _lines;
        var lineStart = _lineStart;
        var consumed = _readerStart + reader.BytesConsumed;
        CountLines(_buffer.Slice(0, consumed), ref lines, ref lineStart, _offset);
        return new TextLocation(path, lines, _offset + consumed - lineStart);
    }

    // The state of a tokenizer that has read every token of json, which ends with a token.
    private static JsonReaderState StateAfter(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json, isFinalBlock: false, new JsonReaderState(EnvelopeParser.ReaderOptions));

        // Stryker disable once Equality : at the end, one more Read finds no token and changes nothing.
        while (reader.BytesConsumed < json.Length && reader.Read())
        {
        }

        return reader.CurrentState;
    }

    // Adds the line feeds in bytes, which start at offset in the body, to lines, and moves lineStart past the last.
    private static void CountLines(ReadOnlySequence<byte> bytes, ref long lines, ref long lineStart, long offset)
    {
        foreach (var segment in bytes)
        {
            CountLines(segment.Span, ref lines, ref lineStart, offset);
            offset += segment.Length;
        }
    }

    private static void CountLines(ReadOnlySpan<byte> bytes, ref long lines, ref long lineStart, long offset)
    {
        var last = bytes.LastIndexOf((byte)'\n');
        if (last >= 0)
        {
            lines += bytes.Count((byte)'\n');
            lineStart = offset + last + 1;
        }
    }
}
