using System.Net;
using System.Net.Http.Headers;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>Only JSON is read: any other content type, or none, is 415 before the body is touched.</summary>
public sealed class ContentTypeTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData("text/plain")]
    [InlineData("application/xml")]
    [InlineData("application/x-www-form-urlencoded")]
    [InlineData("multipart/form-data; boundary=x")]
    [InlineData("application/octet-stream")]
    public async Task Non_json_content_type_is_415(string contentType)
    {
        using var client = factory.CreateClient();
        using var content = new ByteArrayContent(Bodies.Canonical(1, 1));
        content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);

        using var response = await client.PostAsync("/api/sign", content);

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
        Assert.Contains("application/json", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        Assert.Contains($"got '{contentType}'", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Missing_content_type_is_415()
    {
        using var client = factory.CreateClient();
        using var content = new ByteArrayContent(Bodies.Canonical(1, 1));
        Assert.Null(content.Headers.ContentType);

        using var response = await client.PostAsync("/api/sign", content);

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
        Assert.Contains("none", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("application/json; charset=utf-8")]
    [InlineData("Application/JSON")]
    public async Task Json_with_parameters_or_other_case_is_accepted(string contentType)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(1, 1);
        using var content = new ByteArrayContent(body);
        content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);

        using var response = await client.PostAsync("/api/sign", content);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }
}
