namespace Signing.Tests.Transcoding.Harness;

/// <summary>Hand-written bodies for the differential tests: a valid widget with any member's raw JSON replaced.</summary>
internal static class EnvelopeJson
{
    /// <summary>The widget's members in canonical order.</summary>
    public static readonly string[] Members =
        ["id", "property0", "property1", "property2", "property3", "property4", "property5", "property6", "property7", "property8", "property9", "createdUtc"];

    /// <summary>A valid widget's raw JSON value for <paramref name="member"/>.</summary>
    public static string ValidValue(string member) => member switch
    {
        "id" => "\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\"",
        "createdUtc" => "\"2024-03-10T10:34:56.789Z\"",
        _ => "\"" + member[^1] + "\"",
    };

    /// <summary>A widget whose members come in <paramref name="order"/>, each with its valid value unless replaced.</summary>
    public static string Widget(IEnumerable<string> order, Func<string, string>? value = null) =>
        "{" + string.Join(",", order.Select(m => $"\"{m}\":{(value ?? ValidValue)(m)}")) + "}";

    /// <summary>A widget in canonical order with <paramref name="member"/>'s raw JSON value replaced.</summary>
    public static string Widget(string member, string rawValue) => Widget(Members, m => m == member ? rawValue : ValidValue(m));

    /// <summary>A valid widget in canonical order.</summary>
    public static string Widget() => Widget(Members);

    /// <summary>An envelope of the given widgets' raw JSON.</summary>
    public static string Envelope(params string[] widgets) => "{\"widgets\":[" + string.Join(",", widgets) + "]}";
}
