namespace Signing.Tests.Strategies;

/// <summary>Hand-made envelopes for the differential tests, where the generator's random data is not pointed enough.</summary>
internal static class Envelopes
{
    /// <summary>An ordinary instant with a fraction of the second, so a wrong date changes the bytes visibly.</summary>
    public static readonly DateTime Instant = new(2021, 6, 15, 12, 34, 56, 789, DateTimeKind.Utc);

    /// <summary>One widget whose strings are <paramref name="text"/> alone, inside other text, and doubled.</summary>
    public static WidgetEnvelope WithText(string text) => Of(Widget(text, Instant));

    /// <summary>One widget created at <paramref name="created"/>.</summary>
    public static WidgetEnvelope WithDate(DateTime created) => Of(Widget("x", created));

    /// <summary>An envelope of the given widgets.</summary>
    public static WidgetEnvelope Of(params Widget?[] widgets) => new() { Widgets = widgets! };

    /// <summary>A widget that puts <paramref name="text"/> at the start, middle, end and alone.</summary>
    public static Widget Widget(string text, DateTime created) => new()
    {
        Id = new Guid("0f8fad5b-d9cb-469f-a165-70867728950e"),
        Property0 = text,
        Property1 = "a" + text + "b",
        Property2 = text + text,
        Property3 = "\"" + text,
        Property4 = text + "\\",
        Property5 = string.Empty,
        Property6 = "plain",
        Property7 = text + "\n" + text,
        Property8 = "\u00e9" + text,
        Property9 = text + "\ud83d\ude00",
        CreatedUtc = created,
    };
}
