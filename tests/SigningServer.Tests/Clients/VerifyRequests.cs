using System.Net.Http.Json;
using Signing.Http;
using Signing.Http.Keys;

namespace SigningServer.Tests.Clients;

/// <summary>Requests to <c>/api/verify</c> and <c>/api/sign</c> as a receiver and a sender make them.</summary>
internal static class VerifyRequests
{
    /// <summary>
    /// Posts <paramref name="body"/> as JSON to <c>/api/verify</c> with each of <paramref name="headers"/> as an
    /// <c>X-Signature</c> value (none: no header at all).
    /// </summary>
    public static async Task<HttpResponseMessage> VerifyAsync(HttpClient client, byte[] body, string query = "", params string[] headers)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/verify" + query) { Content = Bodies.Json(body) };
        if (headers.Length > 0)
        {
            request.Headers.TryAddWithoutValidation(SignatureHeader.Name, headers);
        }

        return await client.SendAsync(request);
    }

    /// <summary>Signs <paramref name="body"/> through <c>/api/sign</c> and returns the 200 body.</summary>
    public static async Task<SignResponse> SignAsync(HttpClient client, byte[] body, string query = "")
    {
        using var response = await client.PostAsync("/api/sign" + query, Bodies.Json(body));
        Assert.True(response.IsSuccessStatusCode, await response.Content.ReadAsStringAsync());
        return (await response.Content.ReadFromJsonAsync<SignResponse>())!;
    }

    /// <summary>The header value for a signature given as hex.</summary>
    public static string Header(string hex) => SignatureHeader.Prefix + hex;
}
