using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Memory;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Clients;

/// <summary>
/// A request handed straight to <see cref="SignEndpoint"/> or <see cref="VerifyEndpoint"/> on a
/// <see cref="DefaultHttpContext"/>, as the Functions host hands it over, with a body stream and a declared length the
/// test chooses, so it can watch how the body is read and cancel where no server would let it.
/// </summary>
internal static class DirectRequest
{
    /// <summary>A JSON POST to <paramref name="path"/> whose body is <paramref name="body"/>, declaring <paramref name="declaredLength"/>.</summary>
    public static DefaultHttpContext Post(IServiceProvider services, string path, Stream body, long? declaredLength, string query = "")
    {
        var context = new DefaultHttpContext { RequestServices = services };
        context.Request.Method = HttpMethods.Post;
        context.Request.Path = path;
        context.Request.QueryString = new QueryString(query);
        context.Request.ContentType = "application/json";
        context.Request.ContentLength = declaredLength;
        context.Request.Body = body;
        context.Response.Body = new MemoryStream();
        return context;
    }

    /// <summary>Settings for services whose body limit is <paramref name="limit"/> bytes.</summary>
    public static Dictionary<string, string?> WithBodyLimit(int limit) => new()
    {
        ["Signing:Key"] = TestKey.Base64,
        ["Signing:MaxRequestBodyBytes"] = limit.ToString(CultureInfo.InvariantCulture),
    };

    /// <summary>Handles <paramref name="context"/> with <see cref="SignEndpoint"/> and executes the result onto it.</summary>
    public static async Task SignAsync(HttpContext context, CancellationToken cancellationToken = default)
    {
        var result = await context.RequestServices.GetRequiredService<SignEndpoint>().HandleAsync(context.Request, cancellationToken);
        await result.ExecuteAsync(context);
    }

    /// <summary>
    /// Signs <paramref name="body"/> with <paramref name="strategy"/> (no declared length) while other requests hold all
    /// of the in-flight budget but <paramref name="room"/> bytes; returns the request, answered.
    /// </summary>
    public static async Task<HttpContext> SignWithRoomAsync(IServiceProvider services, long room, byte[] body, string strategy)
    {
        var budget = services.GetRequiredService<InFlightBudget>();
        using var others = budget.Open();
        Assert.True(others.TryRaiseTo(budget.LimitBytes - room));
        var context = Post(services, "/api/sign", new ObservedBodyStream(body), declaredLength: null, "?strategy=" + strategy);

        await SignAsync(context);

        return context;
    }

    /// <summary>Handles <paramref name="context"/> with <see cref="VerifyEndpoint"/> and executes the result onto it.</summary>
    public static async Task VerifyAsync(HttpContext context, CancellationToken cancellationToken = default)
    {
        var result = await context.RequestServices.GetRequiredService<VerifyEndpoint>().HandleAsync(context.Request, cancellationToken);
        await result.ExecuteAsync(context);
    }

    /// <summary>
    /// Asserts that <paramref name="context"/> was answered as the in-flight budget refuses a request: 503, a second's
    /// <c>Retry-After</c>, and a problem that says nothing was signed.
    /// </summary>
    public static void AssertOverloaded(HttpContext context)
    {
        Assert.Equal(StatusCodes.Status503ServiceUnavailable, context.Response.StatusCode);
        Assert.Equal("1", context.Response.Headers.RetryAfter.ToString());
        var problem = Problem(context);
        Assert.Equal(StatusCodes.Status503ServiceUnavailable, problem.GetProperty("status").GetInt32());
        Assert.False(problem.TryGetProperty("signature", out _));
        Assert.EndsWith("nothing of this request was signed. Retry after 1 s.", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    /// <summary>The problem's <c>detail</c>, from a response executed onto <paramref name="context"/>.</summary>
    public static string ProblemDetail(HttpContext context) => Problem(context).GetProperty("detail").GetString()!;

    /// <summary>The problem, from a response executed onto <paramref name="context"/>.</summary>
    public static System.Text.Json.JsonElement Problem(HttpContext context)
    {
        Assert.StartsWith(ProblemResponse.MediaType, context.Response.ContentType, StringComparison.Ordinal);
        var body = ((MemoryStream)context.Response.Body).ToArray();
        using var document = System.Text.Json.JsonDocument.Parse(body);
        return document.RootElement.Clone();
    }
}
