using System.Text;
using System.Text.Json;
using Signing;

namespace Signing.Tests;

/// <summary>
/// What a caller is told about a body that is not an envelope, exactly: System.Text.Json's message without its
/// trailing location, the path without its <c>$.</c>, the line and byte position counted from 1, and nothing longer than
/// 200 characters of either.
/// </summary>
/// <remarks>
/// Positions are counted by hand in the bodies below. Messages are System.Text.Json's own wording, which a runtime
/// update may change; if one does, take the new wording from the exception's inner exception, not from our output.
/// </remarks>
public sealed class EnvelopeErrorDetailTests
{
    private const int MaxMessageLength = 200;

    [Fact]
    public void An_invalid_token_is_reported_at_its_own_line_and_byte_counted_from_1()
    {
        // '{"widgets":[' is 12 bytes, so the x is the 13th.
        var e = ParseFails("{\"widgets\":[x]}");

        Assert.Equal("'x' is an invalid start of a value.", e.Message);
        Assert.Equal("widgets[0]", e.Path);
        Assert.Equal(1, e.Line);
        Assert.Equal(13, e.Position);
    }

    [Fact]
    public void An_invalid_token_on_a_later_line_is_reported_at_that_line()
    {
        // The x is the 5th byte of the 3rd line.
        var e = ParseFails("{\n  \"widgets\": [\n    x\n  ]\n}");

        Assert.Equal("'x' is an invalid start of a value.", e.Message);
        Assert.Equal("widgets[0]", e.Path);
        Assert.Equal(3, e.Line);
        Assert.Equal(5, e.Position);
    }

    [Fact]
    public void Content_after_the_envelope_is_reported_where_it_starts()
    {
        // '{"widgets":[] ' is 15 bytes, so the x is the 16th.
        var e = ParseFails("{\"widgets\":[]} x");

        Assert.Equal("'x' is invalid after a single JSON value. Expected end of data.", e.Message);
        Assert.Null(e.Path);
        Assert.Equal(1, e.Line);
        Assert.Equal(16, e.Position);
    }

    [Fact]
    public void A_value_of_the_wrong_type_loses_only_the_location_System_Text_Json_appends()
    {
        var e = ParseFails("{\"widgets\":[{\"id\":\"zz\"}]}");

        // System.Text.Json's own message ends " Path: $.widgets[0].id | LineNumber: 0 | BytePositionInLine: 22.";
        // that travels in Path, Line and Position instead.
        var inner = Assert.IsType<JsonException>(e.InnerException, exactMatch: false);
        Assert.StartsWith("The JSON value could not be converted to System.Guid. Path: ", inner.Message, StringComparison.Ordinal);
        Assert.Equal("The JSON value could not be converted to System.Guid.", e.Message);
        Assert.Equal("widgets[0].id", e.Path);
        Assert.Equal(1, e.Line);

        // System.Text.Json places a conversion error after the value it could not convert: '{"widgets":[{"id":"zz"' is
        // 22 bytes.
        Assert.Equal(23, e.Position);
    }

    [Fact]
    public void A_body_of_the_wrong_kind_has_no_path_rather_than_the_root()
    {
        var e = ParseFails("[]");

        Assert.Equal("The JSON value could not be converted to Signing.WidgetEnvelope.", e.Message);
        Assert.Null(e.Path);
        Assert.Equal(1, e.Line);
        Assert.Equal(2, e.Position);
    }

    [Fact]
    public void A_path_System_Text_Json_writes_in_brackets_is_passed_on_as_it_is()
    {
        // A name with a space cannot follow "$." and System.Text.Json brackets it; only a leading "$." is removed.
        var e = ParseFails("{\"widgets\":[],\"a b\":1}");

        Assert.Equal("$['a b']", e.Path);
        Assert.Equal("The JSON property 'a b' could not be mapped to any .NET member contained in type 'Signing.WidgetEnvelope'.", e.Message);
    }

    [Theory]
    [InlineData(97, false)] // a message of exactly 200 characters
    [InlineData(98, true)] // 201
    public void A_message_longer_than_200_characters_is_cut_to_200_and_an_ellipsis(int nameLength, bool cut)
    {
        var name = new string('n', nameLength);
        var whole = "The JSON property '" + name + "' could not be mapped to any .NET member contained in type 'Signing.WidgetEnvelope'.";
        Assert.Equal(MaxMessageLength + (cut ? 1 : 0), whole.Length);

        var e = ParseFails("{\"widgets\":[],\"" + name + "\":1}");

        Assert.Equal(cut ? whole[..MaxMessageLength] + "…" : whole, e.Message);
    }

    [Theory]
    [InlineData(200, false)]
    [InlineData(201, true)]
    public void A_path_longer_than_200_characters_is_cut_to_200_and_an_ellipsis(int nameLength, bool cut)
    {
        var name = new string('n', nameLength);

        var e = ParseFails("{\"widgets\":[],\"" + name + "\":1}");

        Assert.Equal(cut ? name[..MaxMessageLength] + "…" : name, e.Path);
    }

    [Theory]
    [InlineData("123")]
    [InlineData("\"yesterday\"")]
    [InlineData("\"2024-03-10 10:34:56\"")]
    public void An_instant_that_is_not_ISO_8601_says_what_is_expected(string createdUtc)
    {
        var e = ParseFails(TestData.EnvelopeJson(TestData.WidgetJson(createdUtc)));

        Assert.Equal("The value must be an ISO 8601 date and time string, such as \"2024-03-10T10:34:56.789Z\".", e.Message);
        Assert.Equal("widgets[0].createdUtc", e.Path);
    }

    [Fact]
    public void A_null_widget_is_reported_at_its_index_with_no_position()
    {
        var e = ParseFails(TestData.EnvelopeJson(TestData.WidgetJson(), "null"));

        Assert.Equal("A widget must be an object, not null.", e.Message);
        Assert.Equal("widgets[1]", e.Path);
        Assert.Null(e.Line);
        Assert.Null(e.Position);
    }

    [Fact]
    public void A_null_body_says_what_the_body_must_be()
    {
        var e = ParseFails("null");

        Assert.Equal("The body must be a JSON object of the form {\"widgets\":[…]}.", e.Message);
        Assert.Null(e.Path);
        Assert.Null(e.Line);
        Assert.Null(e.Position);
    }

    [Fact]
    public void An_empty_path_is_no_path()
    {
        Assert.Null(new EnvelopeFormatException("m", string.Empty, 1, 1, null).Path);
        Assert.Equal("widgets", new EnvelopeFormatException("m", "widgets", 1, 1, null).Path);
    }

    [Fact]
    public void The_instant_converter_only_reads()
    {
        // Output is Newtonsoft's (CanonicalJson); writing with the reading options is a mistake, said as such.
        var e = Assert.Throws<NotSupportedException>(() => JsonSerializer.Serialize(new DateTime(2024, 3, 10, 0, 0, 0, DateTimeKind.Utc), EnvelopeParser.Options));

        Assert.StartsWith("Input only", e.Message, StringComparison.Ordinal);
    }

    private static EnvelopeFormatException ParseFails(string json) =>
        Assert.Throws<EnvelopeFormatException>(() => EnvelopeParser.Parse(Encoding.UTF8.GetBytes(json)));
}
