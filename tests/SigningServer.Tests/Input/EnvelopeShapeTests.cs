using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>Well-formed JSON that is not an envelope, or has a value of the wrong type: 400 naming the path.</summary>
public sealed class EnvelopeShapeTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    private const string Id = "\"id\":\"0f8fad5b-d9cb-469f-a165-70867728950e\"";
    private const string Strings = "\"property0\":\"a\",\"property1\":\"a\",\"property2\":\"a\",\"property3\":\"a\",\"property4\":\"a\","
        + "\"property5\":\"a\",\"property6\":\"a\",\"property7\":\"a\",\"property8\":\"a\",\"property9\":\"a\"";
    private const string Created = "\"createdUtc\":\"2021-02-03T04:05:06Z\"";

    [Fact]
    public async Task The_hand_written_widget_is_itself_valid()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(Envelope($"{{{Id},{Strings},{Created}}}")));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Theory]
    [InlineData("{\"widgets\":{}}", "widgets")]
    [InlineData("{\"widgets\":\"many\"}", "widgets")]
    [InlineData("{\"widgets\":42}", "widgets")]
    [InlineData("{\"widgets\":[null]}", "widgets[0]")]
    [InlineData("{\"widgets\":[1]}", "widgets[0]")]
    [InlineData("{\"widgets\":[[]]}", "widgets[0]")]
    public async Task Widgets_of_the_wrong_type_are_400_naming_the_path(string json, string path)
    {
        await AssertRejectedAtAsync(json, path);
    }

    [Theory]
    [InlineData("\"id\":\"not-a-guid\"", "widgets[0].id")]
    [InlineData("\"id\":12", "widgets[0].id")]
    [InlineData("\"id\":null", "widgets[0].id")]
    [InlineData("\"id\":{}", "widgets[0].id")]
    public async Task Id_of_the_wrong_type_is_400_naming_the_path(string id, string path)
    {
        await AssertRejectedAtAsync(Envelope($"{{{id},{Strings},{Created}}}"), path);
    }

    [Theory]
    [InlineData("\"createdUtc\":\"yesterday\"", "widgets[0].createdUtc")]
    [InlineData("\"createdUtc\":null", "widgets[0].createdUtc")]
    [InlineData("\"createdUtc\":[]", "widgets[0].createdUtc")]
    public async Task CreatedUtc_of_the_wrong_type_is_400_naming_the_path(string created, string path)
    {
        await AssertRejectedAtAsync(Envelope($"{{{Id},{Strings},{created}}}"), path);
    }

    [Theory]
    [InlineData("[]")]
    [InlineData("{}")]
    public async Task Property_of_the_wrong_type_is_400_naming_the_path(string value)
    {
        await AssertRejectedAtAsync(Envelope($"{{{Id},{WithProperty3(value)},{Created}}}"), "widgets[0].property3");
    }

    // Signing 42 as "42" would sign a document the caller did not send.
    [Theory]
    [InlineData("42")]
    [InlineData("1.5e3")]
    [InlineData("true")]
    public async Task Property_given_a_number_or_boolean_is_400_naming_the_path(string value)
    {
        await AssertRejectedAtAsync(Envelope($"{{{Id},{WithProperty3(value)},{Created}}}"), "widgets[0].property3");
    }

    [Fact]
    public async Task Null_widgets_is_400_naming_the_member()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json("{\"widgets\":null}"));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.AssertLocates(problem, parent: "", member: "widgets");
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Null_string_property_is_400_naming_the_widget_and_the_member()
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(Envelope($"{{{Id},{WithProperty3("null")},{Created}}}")));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.AssertLocates(problem, parent: "widgets[0]", member: "property3");
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Missing_widget_property_is_400_naming_the_widget()
    {
        using var client = factory.CreateClient();
        var strings = Strings.Replace("\"property3\":\"a\",", "", StringComparison.Ordinal);

        using var response = await client.PostAsync("/api/sign", Bodies.Json(Envelope($"{{{Id},{strings},{Created}}}")));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.AssertLocates(problem, parent: "widgets[0]", member: "property3");
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("[]")]
    [InlineData("\"widgets\"")]
    [InlineData("17")]
    [InlineData("{}")]
    public async Task Document_that_is_not_an_envelope_is_400(string json)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.Detail(problem);
        Assert.True(problem.TryGetProperty("line", out _));
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    private static string WithProperty3(string value) =>
        Strings.Replace("\"property3\":\"a\"", "\"property3\":" + value, StringComparison.Ordinal);

    private static string Envelope(string widget) => $"{{\"widgets\":[{widget}]}}";

    private async Task AssertRejectedAtAsync(string json, string path)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(path, problem.GetProperty("path").GetString());
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
