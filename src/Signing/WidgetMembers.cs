namespace Signing;

/// <summary>
/// A widget's members in canonical order, with the bytes that introduce each one in the canonical document. Both
/// writers take names and separators from here, so the order and spelling of the signed bytes are stated once.
/// </summary>
/// <remarks>
/// The order is <see cref="Widget"/>'s declaration order, which is the order Newtonsoft writes (see
/// <see cref="CanonicalJson"/>) and the order System.Text.Json lists missing members in.
/// </remarks>
internal static class WidgetMembers
{
    /// <summary>How many members a widget has; every one is required.</summary>
    public const int Count = 12;

    /// <summary>The index of <c>id</c>, a Guid.</summary>
    public const int Id = 0;

    /// <summary>The index of <c>createdUtc</c>, an instant; the indexes between it and <see cref="Id"/> are strings.</summary>
    public const int CreatedUtc = Count - 1;

    /// <summary>A mask with one bit for each member, set when all have been seen.</summary>
    public const int All = (1 << Count) - 1;

    private static readonly string[] CamelCaseNames =
        ["id", "property0", "property1", "property2", "property3", "property4", "property5", "property6", "property7", "property8", "property9", "createdUtc"];

    /// <summary>Every member's camelCase name, in canonical order.</summary>
    public static ReadOnlySpan<string> Names => CamelCaseNames;

    /// <summary>The camelCase name of member <paramref name="member"/>.</summary>
    public static string Name(int member) => CamelCaseNames[member];

    /// <summary>
    /// What the canonical document has before member <paramref name="member"/>'s value: the widget's opening brace or
    /// the comma, the quoted name, the colon, and for a string member its opening quote.
    /// </summary>
    public static ReadOnlySpan<byte> Prefix(int member) => member switch
    {
        0 => "{\"id\":"u8,
        1 => ",\"property0\":\""u8,
        2 => ",\"property1\":\""u8,
        3 => ",\"property2\":\""u8,
        4 => ",\"property3\":\""u8,
        5 => ",\"property4\":\""u8,
        6 => ",\"property5\":\""u8,
        7 => ",\"property6\":\""u8,
        8 => ",\"property7\":\""u8,
        9 => ",\"property8\":\""u8,
        10 => ",\"property9\":\""u8,
        11 => ",\"createdUtc\":"u8,
        _ => throw new ArgumentOutOfRangeException(nameof(member)),
    };

    /// <summary>The index of the member called <paramref name="utf8Name"/> (exactly, case included), or -1.</summary>
    public static int Find(ReadOnlySpan<byte> utf8Name)
    {
        switch (utf8Name.Length)
        {
            case 2:
                return utf8Name.SequenceEqual("id"u8) ? Id : -1;
            case 9:
                var digit = utf8Name[8] - '0';
                return (uint)digit <= 9 && utf8Name.StartsWith("property"u8) ? digit + 1 : -1;
            case 10:
                return utf8Name.SequenceEqual("createdUtc"u8) ? CreatedUtc : -1;
            default:
                return -1;
        }
    }
}
