using System.Net;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing;
using Signing.Http;
using Signing.Http.Keys;
using Signing.Http.Memory;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>
/// <see cref="SignEndpoint"/> with no server at all: the services from <c>AddSigning()</c>, a
/// <see cref="DefaultHttpContext"/>, and the returned result executed onto it, as the Functions host does.
/// </summary>
public sealed class DirectInvocationTests
{
    [Fact]
    public async Task Valid_body_is_200_with_the_signature()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var body = Bodies.Canonical(widgetCount: 3, seed: 41);

        var (status, contentType, json) = await InvokeAsync(services, body, "application/json", "?strategy=MemoryStream");

        Assert.Equal(StatusCodes.Status200OK, status);
        Assert.StartsWith("application/json", contentType, StringComparison.Ordinal);
        Assert.Equal(TestKey.SignatureOf(body), json.GetProperty("signature").GetString());
        Assert.Equal("memorystream", json.GetProperty("strategy").GetString());
        Assert.Equal(3, json.GetProperty("widgetCount").GetInt32());
        Assert.Equal(0, services.GetRequiredService<StreamPool>().InUseBytes);
    }

    [Fact]
    public async Task Malformed_body_is_400_problem_with_its_location()
    {
        await using var services = TestServices.Build(TestKey.Base64);

        var (status, contentType, json) = await InvokeAsync(services, Encoding.UTF8.GetBytes("{\"widgets\":[{\"id\":}]}"), "application/json", "");

        Assert.Equal(StatusCodes.Status400BadRequest, status);
        Assert.StartsWith(ProblemResponse.MediaType, contentType, StringComparison.Ordinal);
        Assert.Equal(400, json.GetProperty("status").GetInt32());
        Assert.Equal("widgets[0].id", json.GetProperty("path").GetString());
        Assert.Equal(0, services.GetRequiredService<StreamPool>().InUseBytes);
    }

    [Fact]
    public async Task Unknown_strategy_is_400_problem_listing_the_valid_names()
    {
        await using var services = TestServices.Build(TestKey.Base64);

        var (status, contentType, json) = await InvokeAsync(services, Bodies.Canonical(1, 1), "application/json", "?strategy=nope");

        Assert.Equal(StatusCodes.Status400BadRequest, status);
        Assert.StartsWith(ProblemResponse.MediaType, contentType, StringComparison.Ordinal);
        Assert.Equal(
            services.GetRequiredService<SigningKeyRing>().StrategyNames,
            json.GetProperty("validStrategies").EnumerateArray().Select(e => e.GetString()!).ToArray());
    }

    [Fact]
    public async Task Bad_key_fails_when_the_endpoint_is_resolved_naming_the_setting()
    {
        await using var services = TestServices.Build("too short");

        var exception = Assert.Throws<OptionsValidationException>(services.GetRequiredService<SignEndpoint>);

        Assert.Contains("Signing:Key", exception.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("too short", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Both_endpoints_refuse_a_missing_request_by_name()
    {
        await using var services = TestServices.Build(TestKey.Base64);

        var sign = await Assert.ThrowsAsync<ArgumentNullException>(() => services.GetRequiredService<SignEndpoint>().HandleAsync(null!, CancellationToken.None));
        var verify = await Assert.ThrowsAsync<ArgumentNullException>(() => services.GetRequiredService<VerifyEndpoint>().HandleAsync(null!, CancellationToken.None));

        Assert.Equal("request", sign.ParamName);
        Assert.Equal("request", verify.ParamName);
    }

    private static async Task<(int Status, string ContentType, JsonElement Json)> InvokeAsync(
        IServiceProvider services, byte[] body, string contentType, string query)
    {
        await using var scope = services.CreateAsyncScope();
        var context = new DefaultHttpContext { RequestServices = scope.ServiceProvider };
        context.Request.Method = HttpMethods.Post;
        context.Request.Path = "/api/sign";
        context.Request.QueryString = new QueryString(query);
        context.Request.ContentType = contentType;
        context.Request.ContentLength = body.Length;
        context.Request.Body = new MemoryStream(body);
        using var responseBody = new MemoryStream();
        context.Response.Body = responseBody;

        var endpoint = scope.ServiceProvider.GetRequiredService<SignEndpoint>();
        var result = await endpoint.HandleAsync(context.Request, CancellationToken.None);
        await result.ExecuteAsync(context);

        using var document = JsonDocument.Parse(responseBody.ToArray());
        return (context.Response.StatusCode, context.Response.ContentType ?? "", document.RootElement.Clone());
    }
}
