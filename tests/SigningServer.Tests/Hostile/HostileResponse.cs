using System.Net;
using System.Text.Json;
using Signing.Tests.Hostile;
using SigningServer.Tests.Clients;

namespace SigningServer.Tests.Hostile;

/// <summary>What every hostile request must get: a 4xx (never a 5xx) with a problem details body that agrees with it.</summary>
internal static class HostileResponse
{
    /// <summary>Checks <paramref name="response"/> to <paramref name="hostile"/> and returns its status.</summary>
    public static async Task<HttpStatusCode> AssertClientErrorProblemAsync(HttpResponseMessage response, HostileCase hostile)
    {
        ArgumentNullException.ThrowIfNull(response);
        ArgumentNullException.ThrowIfNull(hostile);
        var status = (int)response.StatusCode;
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(status is >= 400 and < 500, $"{hostile}: expected a 4xx, got {status}: {Excerpt(text)}");
        Assert.True(
            response.Content.Headers.ContentType?.MediaType == ProblemResponse.MediaType,
            $"{hostile}: {status} is not problem details ({response.Content.Headers.ContentType}): {Excerpt(text)}");

        using var problem = JsonDocument.Parse(text);
        Assert.Equal(status, problem.RootElement.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrWhiteSpace(problem.RootElement.GetProperty("title").GetString()), hostile.Name);
        return response.StatusCode;
    }

    private static string Excerpt(string text) => text.Length <= 300 ? text : text[..300] + "…";
}
