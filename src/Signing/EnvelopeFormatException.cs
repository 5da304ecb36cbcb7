namespace Signing;

/// <summary>
/// The body is not an envelope we can sign: malformed JSON, the wrong shape or types, an unknown or duplicate
/// property, invalid UTF-8.
/// Carries where the problem is, so the caller can fix the request, and never the offending value itself beyond
/// a short excerpt.
/// </summary>
public sealed class EnvelopeFormatException : Exception
{
    /// <summary>Creates the exception with no location.</summary>
    public EnvelopeFormatException()
    {
    }

    /// <summary>Creates the exception with no location.</summary>
    public EnvelopeFormatException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with no location.</summary>
    public EnvelopeFormatException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a problem at a known place in the document.</summary>
    public EnvelopeFormatException(string message, string? path, long? line, long? position, Exception? innerException)
        : base(message, innerException)
    {
        Path = string.IsNullOrEmpty(path) ? null : path;
        Line = line;
        Position = position;
    }

    /// <summary>The JSON path of the problem, such as <c>widgets[3].id</c>, when known.</summary>
    public string? Path { get; }

    /// <summary>The 1-based line of the problem, when known.</summary>
    public long? Line { get; }

    /// <summary>The 1-based byte position on <see cref="Line"/>, when known.</summary>
    public long? Position { get; }
}
