using System.Buffers;
using System.Text;
using System.Text.Json;

namespace Signing.Transcoding;

/// <summary>
/// The failures System.Text.Json reports while <see cref="EnvelopeParser"/> deserializes, built by the transcoder in
/// the same words and at the same path, then reported through <see cref="EnvelopeErrors"/> exactly as the parser's are.
/// </summary>
/// <remarks>
/// The words are System.Text.Json's own resource strings; the differential tests, which run both paths over the same
/// bytes and compare message, path, line and position, are the authority. Every method here is on the failure path
/// only, so it may allocate.
/// </remarks>
internal static class TranscodeErrors
{
    // A path quotes a property name in brackets when it holds one of these, as System.Text.Json's ReadStack does.
    private static readonly SearchValues<char> SpecialInPath = SearchValues.Create(". '/\"[]()\t\n\r\f\b\\\u0085\u2028\u2029");

    // System.Text.Json's missing-members list stops growing once it is this long.
    private const int MissingListCutOff = 60;

    /// <summary>
    /// A syntax error the tokenizer threw at <paramref name="path"/>, with its location moved after the path as
    /// System.Text.Json's serializer moves it.
    /// </summary>
    /// <param name="e">What the tokenizer threw.</param>
    /// <param name="path">Where in the envelope the tokenizer was.</param>
    /// <param name="lineShift">The body's line where the tokenizer's line 0 is.</param>
    /// <param name="columnShift">What to add to a column the tokenizer counts on its line 0 to make it the body's.</param>
    public static EnvelopeFormatException Syntax(JsonException e, string path, long lineShift, long columnShift)
    {
        var line = e.LineNumber + lineShift;
        var column = e.LineNumber == 0 ? e.BytePositionInLine + columnShift : e.BytePositionInLine;
        var message = e.Message;
        var location = message.LastIndexOf(" LineNumber: ", StringComparison.Ordinal);

        // Stryker disable once Conditional,Equality,String : the reader's messages always end with the location (never
        // at 0); the other branch keeps the message whole should a later System.Text.Json change that.
        message = location >= 0
            ? $"{message[..location]} Path: {path} | LineNumber: {line} | BytePositionInLine: {column}."
            : $"{message} Path: {path}.";
        return EnvelopeErrors.FromJson(new JsonException(message, path, line, column, e));
    }

    /// <summary>A value of the wrong kind, or that does not parse as <paramref name="type"/>.</summary>
    public static EnvelopeFormatException CannotConvert(Type type, in TextLocation at) =>
        At($"The JSON value could not be converted to {type}.", at);

    /// <summary>A converter's own refusal, such as <see cref="UtcInstantConverter"/>'s.</summary>
    public static EnvelopeFormatException Refused(JsonException e, in TextLocation at) => At(e.Message, at, e);

    /// <summary>A property name that is not a member of <paramref name="type"/>.</summary>
    public static EnvelopeFormatException Unmapped(string name, Type type, in TextLocation at) =>
        At($"The JSON property '{name}' could not be mapped to any .NET member contained in type '{type}'.", at);

    /// <summary>A member given twice; reported once its second value has been read.</summary>
    public static EnvelopeFormatException Duplicate(string name, Type type, in TextLocation at) =>
        At($"Duplicate property '{name}' encountered during deserialization of type '{type}'.", at);

    /// <summary><c>null</c> for a member that is not nullable.</summary>
    public static EnvelopeFormatException NullNotAllowed(string name, Type type, in TextLocation at) =>
        At($"The property or field '{name}' on type '{type}' doesn't allow setting null values. Consider updating its nullability annotation.", at);

    /// <summary>The end of an object before all its required members were given.</summary>
    /// <param name="type">The object's type.</param>
    /// <param name="seen">A bit per member of <paramref name="names"/>, set for those given.</param>
    /// <param name="names">Every member, in declaration order.</param>
    /// <param name="at">Where the object ended.</param>
    public static EnvelopeFormatException Missing(Type type, int seen, ReadOnlySpan<string> names, in TextLocation at)
    {
        var list = new StringBuilder();

        for (var member = 0;
            member < names.Length &&
            // Stryker disable once Equality : no list of a widget's or the envelope's names is ever exactly 60
            // characters long ('id' 4 or 'propertyN' 11, then 13 for each ', 'propertyN'' and 14 for ', 'createdUtc''),
            // so "<=" stops where "<" does.
            list.Length < MissingListCutOff;
            member++)
        {
            if ((seen & (1 << member)) == 0)
            {
                list.Append(list.Length > 0 ? ", '" : "'").Append(names[member]).Append('\'');
            }
        }

        return At($"JSON deserialization for type '{type}' was missing required properties including: {list}.", at);
    }

    /// <summary><paramref name="path"/> with <paramref name="name"/> appended as System.Text.Json appends a property.</summary>
    public static string Member(string path, string name) =>
        name.AsSpan().ContainsAny(SpecialInPath) ? $"{path}['{name}']" : $"{path}.{name}";

    private static EnvelopeFormatException At(string message, in TextLocation at, Exception? inner = null) =>
        EnvelopeErrors.FromJson(new JsonException(message, at.Path, at.Line, at.BytePositionInLine, inner));
}
