namespace Signing.Transcoding;

/// <summary>Where a failure is: the JSON path and the 0-based line and byte position, as System.Text.Json counts them.</summary>
/// <param name="Path">The path from the root, such as <c>$.widgets[3].id</c>.</param>
/// <param name="Line">How many line feeds come before the failure.</param>
/// <param name="BytePositionInLine">How many bytes after the last line feed (or the start) the failure ends.</param>
internal readonly record struct TextLocation(string Path, long Line, long BytePositionInLine);
