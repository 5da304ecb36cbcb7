using System.Net;
using System.Net.Http.Json;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>The endpoint over a real socket, with Kestrel's own body limit in force.</summary>
public sealed class KestrelLoopbackTests(KestrelSigningServerFactory factory) : IClassFixture<KestrelSigningServerFactory>
{
    [Fact]
    public async Task Signs_over_real_http_on_loopback()
    {
        using var client = factory.CreateClient();
        Assert.True(IPAddress.IsLoopback(IPAddress.Parse(client.BaseAddress!.Host)), $"Not loopback: {client.BaseAddress}");
        Assert.NotEqual(0, client.BaseAddress.Port);

        var body = Bodies.Canonical(widgetCount: 3, seed: 1);
        using var response = await client.PostAsync("/api/sign?strategy=string", Bodies.Json(body));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
        Assert.Equal(TestKey.SignatureOf(body), signed!.Signature);
        Assert.Equal(3, signed.WidgetCount);
    }

    [Fact]
    public void AddSigning_sets_kestrels_body_limit_from_the_signing_options()
    {
        var kestrel = factory.Services.GetRequiredService<IOptions<KestrelServerOptions>>().Value;

        Assert.Equal(KestrelSigningServerFactory.Limit, kestrel.Limits.MaxRequestBodySize);
    }

    [Fact]
    public async Task Chunked_body_over_the_limit_is_413_from_kestrel()
    {
        using var client = factory.CreateStreamingClient();
        // Only a little over the limit, so the whole body is on the server before it answers and closes.
        using var request = UnknownLengthContent.ChunkedPost("/api/sign", Bodies.Padded(KestrelSigningServerFactory.Limit + 512));

        using var response = await client.SendAsync(request);

        Assert.Null(request.Content!.Headers.ContentLength);

        // Kestrel stopped the read, at the same number as the endpoint's limit; the client gets the endpoint's problem.
        await ProblemResponse.AssertPastServiceLimitAsync(response, SigningStrategies.DefaultName, KestrelSigningServerFactory.Limit);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Body_with_content_length_over_the_limit_is_413()
    {
        using var client = factory.CreateClient();
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Bodies.Json(Bodies.Padded(64 * 1024)) };

        // The endpoint answers from the Content-Length alone. With Expect: 100-continue the client waits for the go-ahead
        // that never comes, so it gets the 413 instead of a reset from a server that closed on a body it never read.
        request.Headers.ExpectContinue = true;
        using var response = await client.SendAsync(request);

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Contains(KestrelSigningServerFactory.Limit.ToString(System.Globalization.CultureInfo.InvariantCulture), ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
