using System.Reflection;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Http;
using Microsoft.Azure.Functions.Worker;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Hosting.Internal;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;
using Signing.Http;

namespace SigningFunctions.Tests;

/// <summary>
/// The <c>sign</c> function called the way the ASP.NET Core integration calls it: with a real HttpRequest, then its
/// IResult executed against the same HttpContext. No Functions host is needed, so these run wherever the project builds.
/// </summary>
public sealed class SignFunctionTests : IDisposable
{
    // The 32 bytes 0x00 … 0x1f, as in SigningServer.Tests.
    private const string KeyBase64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(32)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignature = "a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c";

    private readonly ServiceProvider _services = CreateServices();

    public void Dispose() => _services.Dispose();

    [Fact]
    public async Task Empty_envelope_signs_to_the_value_python_computes()
    {
        var context = await InvokeAsync("{ \"widgets\" : [ ] }");

        Assert.Equal(StatusCodes.Status200OK, context.Response.StatusCode);
        Assert.StartsWith("application/json", context.Response.ContentType, StringComparison.Ordinal);
        using var body = ReadBody(context);
        Assert.Equal(EmptyEnvelopeSignature, body.RootElement.GetProperty("signature").GetString());
        Assert.Equal(0, body.RootElement.GetProperty("widgetCount").GetInt32());
    }

    [Fact]
    public async Task Generated_envelope_signs_to_the_HMAC_of_its_canonical_bytes()
    {
        var canonical = CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(25, 7), CanonicalJson.Settings));

        var context = await InvokeAsync(canonical);

        Assert.Equal(StatusCodes.Status200OK, context.Response.StatusCode);
        using var body = ReadBody(context);
        var signature = body.RootElement.GetProperty("signature").GetString();
        Assert.Matches("^[0-9a-f]{64}$", signature);
        Assert.Equal(Convert.ToHexStringLower(HMACSHA256.HashData(Convert.FromBase64String(KeyBase64), canonical)), signature);
        Assert.Equal(25, body.RootElement.GetProperty("widgetCount").GetInt32());
        Assert.Equal(canonical.Length, body.RootElement.GetProperty("bytesSigned").GetInt64());
    }

    [Fact]
    public async Task Malformed_json_is_a_400_problem_document()
    {
        var context = await InvokeAsync("{ \"widgets\" : [ ");

        Assert.Equal(StatusCodes.Status400BadRequest, context.Response.StatusCode);
        Assert.StartsWith("application/problem+json", context.Response.ContentType, StringComparison.Ordinal);
        using var body = ReadBody(context);
        Assert.Equal(400, body.RootElement.GetProperty("status").GetInt32());
        Assert.Equal("Invalid envelope", body.RootElement.GetProperty("title").GetString());
    }

    [Fact]
    public void Function_is_declared_as_post_api_sign_with_function_level_keys()
    {
        var method = typeof(SignFunction).GetMethod(nameof(SignFunction.RunAsync))!;

        Assert.Equal("sign", method.GetCustomAttribute<FunctionAttribute>()!.Name);
        var trigger = method.GetParameters()[0].GetCustomAttribute<HttpTriggerAttribute>()!;
        Assert.Equal(AuthorizationLevel.Function, trigger.AuthLevel);
        Assert.Equal("post", Assert.Single(trigger.Methods!));
        Assert.Equal("sign", trigger.Route);
    }

    private async Task<HttpContext> InvokeAsync(string json) => await InvokeAsync(Encoding.UTF8.GetBytes(json));

    private async Task<HttpContext> InvokeAsync(byte[] body)
    {
        var context = new DefaultHttpContext { RequestServices = _services };
        context.Request.Method = HttpMethods.Post;
        context.Request.Path = "/api/sign";
        context.Request.ContentType = "application/json";
        context.Request.ContentLength = body.Length;
        context.Request.Body = new MemoryStream(body);
        context.Response.Body = new MemoryStream();

        var function = new SignFunction(_services.GetRequiredService<SignEndpoint>());
        var result = await function.RunAsync(context.Request, CancellationToken.None);
        await result.ExecuteAsync(context);
        return context;
    }

    private static JsonDocument ReadBody(HttpContext context)
    {
        context.Response.Body.Position = 0;
        return JsonDocument.Parse(context.Response.Body);
    }

    private static ServiceProvider CreateServices()
    {
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(new Dictionary<string, string?> { ["Signing:Key"] = KeyBase64 })
            .Build();
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(configuration);
        // Production, as in Azure: the test key is not the committed development key, so it must be accepted anyway.
        services.AddSingleton<IHostEnvironment>(new HostingEnvironment
        {
            EnvironmentName = Environments.Production,
            ApplicationName = "SigningFunctions",
            ContentRootPath = AppContext.BaseDirectory,
        });
        services.AddLogging();
        services.AddSigning();
        return services.BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true, ValidateScopes = true });
    }
}
