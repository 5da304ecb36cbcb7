using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Clients;

/// <summary>
/// What must hold after any client mistake: the server still signs a valid request correctly, and every pooled
/// byte has gone back.
/// </summary>
internal static class ServerHealth
{
    public static async Task AssertStillSigningAsync(HttpClient client, SigningServerFactory factory)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(factory);

        // Every pooled byte is returned before the endpoint returns its result, so before the response is written.
        Assert.Equal(0, factory.Pool.InUseBytes);

        var body = Bodies.Canonical(widgetCount: 2, seed: 99);
        using var response = await client.PostAsync("/api/sign", Bodies.Json(body));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
        Assert.Equal(TestKey.SignatureOf(body), signed!.Signature);
        Assert.Equal(0, factory.Pool.InUseBytes);
    }
}
