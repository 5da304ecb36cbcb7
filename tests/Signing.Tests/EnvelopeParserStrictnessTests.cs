using System.Text;
using Signing;

namespace Signing.Tests;

/// <summary>
/// The parser refuses anything it cannot sign faithfully, with an <see cref="EnvelopeFormatException"/> that says
/// where the problem is and never echoes a long value back.
/// </summary>
public sealed class EnvelopeParserStrictnessTests
{
    private const int MaxReasonableMessage = 300;

    private static readonly string Valid = TestData.WidgetJson();

    [Fact]
    public void Valid_envelope_parses()
    {
        // The baseline the failures below are variations of; trailing whitespace is allowed JSON.
        var envelope = TestData.Parse(TestData.EnvelopeJson(Valid, Valid) + " \r\n\t");

        Assert.Equal(2, envelope.Widgets.Count);
        Assert.Equal("a", envelope.Widgets[1].Property0);
    }

    [Fact]
    public void Unknown_widget_property_is_rejected_at_its_path()
    {
        var json = TestData.EnvelopeJson(Valid, Valid.Replace("\"property9\"", "\"colour\":\"red\",\"property9\"", StringComparison.Ordinal));

        var e = ParseFails(json);

        Assert.Equal("widgets[1].colour", e.Path);
        Assert.Contains("colour", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Unknown_top_level_property_is_rejected_at_its_path()
    {
        var e = ParseFails("{\"widgets\":[],\"signature\":\"abc\"}");

        Assert.Equal("signature", e.Path);
    }

    [Fact]
    public void Missing_widget_property_is_rejected()
    {
        var e = ParseFails(TestData.EnvelopeJson(Valid.Replace("\"property3\":\"d\",", string.Empty, StringComparison.Ordinal)));

        Assert.Equal("widgets[0]", e.Path);
        Assert.Contains("property3", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Missing_created_instant_is_rejected()
    {
        var json = TestData.EnvelopeJson(Valid.Replace(",\"createdUtc\":\"2024-03-10T10:34:56.789Z\"", string.Empty, StringComparison.Ordinal));

        var e = ParseFails(json);

        Assert.Contains("createdUtc", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Missing_widgets_is_rejected()
    {
        var e = ParseFails("{}");

        Assert.Contains("widgets", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    public void Null_widget_is_rejected_at_its_index(int index)
    {
        var widgets = new[] { Valid, Valid, Valid };
        widgets[index] = "null";

        var e = ParseFails(TestData.EnvelopeJson(widgets));

        Assert.Equal($"widgets[{index}]", e.Path);
    }

    [Theory]
    [InlineData("{\"widgets\":null}")]
    [InlineData("{\"widgets\":[WIDGET_WITH_NULL_PROPERTY]}")]
    public void Null_where_a_value_is_required_is_rejected(string json)
    {
        var nullProperty = Valid.Replace("\"property2\":\"c\"", "\"property2\":null", StringComparison.Ordinal);

        ParseFails(json.Replace("WIDGET_WITH_NULL_PROPERTY", nullProperty, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("\"not-a-guid\"")]
    [InlineData("\"\"")]
    [InlineData("12345")]
    [InlineData("true")]
    [InlineData("null")]
    [InlineData("{}")]
    [InlineData("[]")]
    public void Id_that_is_not_a_GUID_is_rejected_at_its_path(string id)
    {
        var e = ParseFails(TestData.EnvelopeJson(TestData.WidgetJson(id: id)));

        Assert.NotNull(e.Path);
        Assert.StartsWith("widgets[0].id", e.Path, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("{}")]
    [InlineData("\"widgets\"")]
    [InlineData("42")]
    [InlineData("true")]
    public void Widgets_that_is_not_an_array_is_rejected_at_its_path(string widgets)
    {
        var e = ParseFails("{\"widgets\":" + widgets + "}");

        Assert.Equal("widgets", e.Path);
    }

    [Theory]
    [InlineData("[]")]
    [InlineData("\"{}\"")]
    [InlineData("42")]
    public void Body_that_is_not_an_object_is_rejected(string body)
    {
        ParseFails(body);
    }

    [Theory]
    [InlineData("123")]
    [InlineData("\"yesterday\"")]
    [InlineData("null")]
    [InlineData("[]")]
    public void Created_instant_that_is_not_a_date_is_rejected_at_its_path(string createdUtc)
    {
        var e = ParseFails(TestData.EnvelopeJson(TestData.WidgetJson(createdUtc)));

        Assert.Equal("widgets[0].createdUtc", e.Path);
    }

    [Theory]
    [InlineData("{}")]
    [InlineData("{\"widgets\":[]}")]
    [InlineData("x")]
    [InlineData("[")]
    [InlineData(",")]
    [InlineData("null")]
    public void Content_after_the_envelope_is_rejected(string trailing)
    {
        ParseFails("{\"widgets\":[]} " + trailing);
    }

    [Theory]
    [InlineData("{\"widgets\":[")]
    [InlineData("{\"widgets\":[]")]
    [InlineData("{\"widgets\"")]
    public void Truncated_body_is_rejected(string body)
    {
        ParseFails(body);
    }

    [Theory]
    [InlineData(new byte[] { 0xC3, 0x28 })] // a lead byte followed by a non-continuation byte
    [InlineData(new byte[] { 0xFF })] // never valid in UTF-8
    [InlineData(new byte[] { 0xC0, 0xAF })] // overlong encoding of '/'
    [InlineData(new byte[] { 0xED, 0xA0, 0x80 })] // a surrogate (U+D800) encoded as if it were a character
    [InlineData(new byte[] { 0xF4, 0x90, 0x80, 0x80 })] // above U+10FFFF
    [InlineData(new byte[] { 0xE6, 0x9D })] // a three-byte sequence cut short
    public void Invalid_UTF8_inside_a_string_is_rejected(byte[] invalid)
    {
        var prefix = Encoding.UTF8.GetBytes("{\"widgets\":[" + Valid.Replace("\"property4\":\"e\"", "\"property4\":\"e", StringComparison.Ordinal));
        var suffix = Encoding.UTF8.GetBytes("\"" + Valid[Valid.IndexOf(",\"property5\"", StringComparison.Ordinal)..] + "]}");

        ParseFails([.. prefix, .. invalid, .. suffix]);
    }

    [Fact]
    public void Invalid_UTF8_after_the_first_read_buffer_is_rejected()
    {
        var widgets = Enumerable.Repeat(Valid, 100).ToArray();
        var prefix = Encoding.UTF8.GetBytes("{\"widgets\":[" + string.Join(',', widgets) + ",{\"id\":\"");
        Assert.True(prefix.Length > 16 * 1024);

        ParseFails([.. prefix, 0xFF, .. "\"}]}"u8]);
    }

    [Fact]
    public void Byte_order_mark_is_rejected()
    {
        byte[] body = [0xEF, 0xBB, 0xBF, .. Encoding.UTF8.GetBytes(TestData.EnvelopeJson(Valid))];

        ParseFails(body);
    }

    [Theory]
    [InlineData("")]
    [InlineData(" ")]
    [InlineData(" \r\n\t ")]
    [InlineData("null")]
    [InlineData(" null ")]
    public void Empty_whitespace_or_null_body_is_rejected(string body)
    {
        var e = ParseFails(body);

        Assert.Null(e.Path);
    }

    // The envelope is three levels deep, so the reader meets a wrong token long before MaxDepth; what matters is that
    // deep nesting anywhere ends in EnvelopeFormatException (not a stack overflow or a long walk), near its start.
    [Theory]
    [InlineData("ARRAYS")]
    [InlineData("{\"widgets\":ARRAYS}")]
    [InlineData("{\"widgets\":[ARRAYS]}")]
    [InlineData("{\"widgets\":[OBJECTS]}")]
    [InlineData("{\"widgets\":[{\"id\":ARRAYS}]}")]
    [InlineData("{\"widgets\":[{\"id\":OBJECTS}]}")]
    [InlineData("{\"widgets\":[{\"property0\":ARRAYS}]}")]
    [InlineData("{\"widgets\":[{\"createdUtc\":OBJECTS}]}")]
    [InlineData("{\"widgets\":[{\"unknown\":ARRAYS}]}")]
    [InlineData("{\"widgets\":[]}ARRAYS")]
    public void Nesting_deeper_than_MaxDepth_is_rejected_early(string template)
    {
        const int Depth = 100 * CanonicalJson.MaxDepth;
        var arrays = new string('[', Depth) + new string(']', Depth);
        var objects = string.Concat(Enumerable.Repeat("{\"a\":", Depth)) + "1" + new string('}', Depth);
        var json = template.Replace("ARRAYS", arrays, StringComparison.Ordinal).Replace("OBJECTS", objects, StringComparison.Ordinal);

        var e = ParseFails(json);

        Assert.True(e.Position is null or < 100, $"Stopped at position {e.Position}.");
    }

    [Fact]
    public void Unclosed_nesting_deeper_than_MaxDepth_is_rejected()
    {
        ParseFails("{\"widgets\":" + new string('[', 1_000_000));
    }

    [Theory]
    [InlineData("{\"widgets\":[{\"id\":\"LONG\"}]}")] // a GUID that is not one
    [InlineData("{\"widgets\":[{\"id\":\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\",\"createdUtc\":\"LONG\"}]}")] // a date that is not one
    [InlineData("{\"widgets\":\"LONG\"}")] // a string where the list belongs
    [InlineData("{\"widgets\":[],\"LONG\":1}")] // an unknown property with a long name
    [InlineData("{\"widgets\":[{\"LONG\":1}]}")] // the same inside a widget
    [InlineData("{\"LONG")] // a name that never ends
    public void Error_does_not_echo_a_long_value(string template)
    {
        var longValue = new string('x', 100_000);

        var e = ParseFails(template.Replace("LONG", longValue, StringComparison.Ordinal));

        Assert.True(e.Message.Length < MaxReasonableMessage, $"Message is {e.Message.Length} characters.");
        Assert.True((e.Path?.Length ?? 0) < MaxReasonableMessage, $"Path is {e.Path?.Length} characters.");
    }

    [Fact]
    public void Error_does_not_echo_a_long_number()
    {
        var e = ParseFails(TestData.EnvelopeJson(TestData.WidgetJson(id: new string('9', 100_000))));

        Assert.True(e.Message.Length < MaxReasonableMessage, $"Message is {e.Message.Length} characters.");
    }

    [Fact]
    public void Error_gives_the_line_and_position_of_the_problem()
    {
        var e = ParseFails("{\n  \"widgets\": [\n    \"oops\"\n  ]\n}");

        Assert.Equal("widgets[0]", e.Path);
        Assert.Equal(3, e.Line);
        Assert.NotNull(e.Position);
    }

    // Newtonsoft's reader would accept every one of these and the envelope would then be signed as if the caller had
    // sent the canonical form (5 becoming "5", 'a' becoming "a", the comment gone, the last duplicate winning).
    [Theory]
    [InlineData("{\"widgets\":[WIDGET],}")] // trailing comma
    [InlineData("{widgets:[WIDGET]}")] // unquoted name
    [InlineData("{'widgets':[WIDGET]}")] // single quotes
    [InlineData("{\"widgets\":[WIDGET] /* comment */}")] // comment
    [InlineData("{\"Widgets\":[WIDGET]}")] // name in the wrong case
    [InlineData("{\"widgets\":[],\"widgets\":[WIDGET]}")] // duplicate name
    [InlineData("{\"widgets\":[WIDGET_WITH_NUMBER]}")] // a number where a string belongs
    [InlineData("{\"widgets\":[WIDGET_WITH_BOOLEAN]}")] // a boolean where a string belongs
    [InlineData("{\"widgets\":[WIDGET_WITH_RAW_CONTROL_CHARACTER]}")] // an unescaped control character
    [InlineData("{\"widgets\":[WIDGET_WITH_US_DATE]}")] // a date that is not ISO 8601
    [InlineData("{\"widgets\":[WIDGET_WITH_BRACED_ID]}")] // a GUID in another format than the 36-character one
    [InlineData("{\"widgets\":[WIDGET_WITH_LONE_SURROGATE]}")] // an escaped lone surrogate, which is not text
    public void Input_that_is_not_strict_JSON_of_the_right_types_is_rejected(string template)
    {
        var json = template
            .Replace("WIDGET_WITH_NUMBER", Valid.Replace("\"property0\":\"a\"", "\"property0\":5", StringComparison.Ordinal), StringComparison.Ordinal)
            .Replace("WIDGET_WITH_BOOLEAN", Valid.Replace("\"property0\":\"a\"", "\"property0\":true", StringComparison.Ordinal), StringComparison.Ordinal)
            .Replace("WIDGET_WITH_RAW_CONTROL_CHARACTER", Valid.Replace("\"property0\":\"a\"", "\"property0\":\"a\u0001\"", StringComparison.Ordinal), StringComparison.Ordinal)
            .Replace("WIDGET_WITH_US_DATE", TestData.WidgetJson("\"03/10/2024\""), StringComparison.Ordinal)
            .Replace("WIDGET_WITH_BRACED_ID", TestData.WidgetJson(id: "\"{6f9619ff-8b86-d011-b42d-00cf4fc964ff}\""), StringComparison.Ordinal)
            .Replace("WIDGET_WITH_LONE_SURROGATE", Valid.Replace("\"property0\":\"a\"", "\"property0\":\"a\\ud800\"", StringComparison.Ordinal), StringComparison.Ordinal)
            .Replace("WIDGET", Valid, StringComparison.Ordinal);

        ParseFails(json);
    }

    private static EnvelopeFormatException ParseFails(string json) => ParseFails(Encoding.UTF8.GetBytes(json));

    private static EnvelopeFormatException ParseFails(byte[] utf8) => Assert.Throws<EnvelopeFormatException>(() => TestData.Parse(utf8));
}
