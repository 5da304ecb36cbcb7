using System.Text.Json;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Signing;
using Signing.Http;
using Signing.Http.Keys;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Stats;

/// <summary>
/// <see cref="StatsEndpoint"/> with no server, as the Functions app's <c>stats</c> function runs it: the services from
/// <c>AddSigning()</c> alone (so the meter must not depend on a host having added metrics), a
/// <see cref="DefaultHttpContext"/>, and the returned result executed onto it.
/// </summary>
public sealed class StatsDirectInvocationTests
{
    [Fact]
    public async Task Stats_from_AddSigning_alone_are_a_json_snapshot_of_every_strategy()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        await using var scope = services.CreateAsyncScope();
        var context = new DefaultHttpContext { RequestServices = scope.ServiceProvider };
        context.Request.Method = HttpMethods.Get;
        context.Request.Path = "/api/stats";
        using var responseBody = new MemoryStream();
        context.Response.Body = responseBody;

        var result = scope.ServiceProvider.GetRequiredService<StatsEndpoint>().Handle(context.Request);
        await result.ExecuteAsync(context);

        Assert.Equal(StatusCodes.Status200OK, context.Response.StatusCode);
        Assert.StartsWith("application/json", context.Response.ContentType, StringComparison.Ordinal);
        Assert.Equal("no-store", context.Response.Headers.CacheControl.ToString());
        using var document = JsonDocument.Parse(responseBody.ToArray());
        Assert.Equal(
            services.GetRequiredService<SigningKeyRing>().StrategyNames,
            document.RootElement.GetProperty("strategies").EnumerateArray().Select(s => s.GetProperty("name").GetString()!));
        Assert.All(document.RootElement.GetProperty("strategies").EnumerateArray(), s => Assert.Equal(0, s.GetProperty("requests").GetInt64()));
    }
}
