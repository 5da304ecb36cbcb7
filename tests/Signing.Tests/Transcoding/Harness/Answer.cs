namespace Signing.Tests.Transcoding.Harness;

/// <summary>What one path answered for one body: the canonical bytes and widget count, or the refusal.</summary>
internal sealed record Answer(byte[]? Canonical, int WidgetCount, string? Message, string? Path, long? Line, long? Position)
{
    public static Answer Signed(byte[] canonical, int widgetCount) => new(canonical, widgetCount, null, null, null, null);

    public static Answer Refused(EnvelopeFormatException e) => new(null, 0, e.Message, e.Path, e.Line, e.Position);

    public bool IsSigned => Canonical is not null;

    /// <summary>Null when both answered the same; otherwise how they differ.</summary>
    public static string? Difference(Answer expected, Answer actual)
    {
        if (expected.IsSigned && actual.IsSigned)
        {
            if (expected.WidgetCount != actual.WidgetCount)
            {
                return $"widget counts {expected.WidgetCount} and {actual.WidgetCount}";
            }

            var at = expected.Canonical.AsSpan().CommonPrefixLength(actual.Canonical);
            return at == expected.Canonical!.Length && at == actual.Canonical!.Length
                ? null
                : $"canonical bytes differ at offset {at} (lengths {expected.Canonical.Length} and {actual.Canonical!.Length})";
        }

        return expected == actual ? null : $"object path: {expected}; transcoder: {actual}";
    }

    public override string ToString() =>
        IsSigned ? $"signed {Canonical!.Length} bytes, {WidgetCount} widgets" : $"refused at [{Path}] line {Line} position {Position}: {Message}";
}
