using System.Net;
using System.Text.Json;

namespace SigningServer.Tests.Clients;

/// <summary>Checks that a response is an RFC 9457 problem with the expected status, and returns its body.</summary>
internal static class ProblemResponse
{
    public const string MediaType = "application/problem+json";

    public static async Task<JsonElement> AssertAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        ArgumentNullException.ThrowIfNull(response);
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(expected == response.StatusCode, $"Expected {(int)expected}, got {(int)response.StatusCode}: {text}");
        Assert.Equal(MediaType, response.Content.Headers.ContentType?.MediaType);

        using var document = JsonDocument.Parse(text);
        var problem = document.RootElement.Clone();
        Assert.Equal((int)expected, problem.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrWhiteSpace(problem.GetProperty("title").GetString()));
        return problem;
    }

    /// <summary>
    /// Checks that the problem points at <paramref name="member"/> of the object at <paramref name="parent"/> (empty
    /// for the root): either <c>path</c> is the member's own path, or it is the parent's and <c>detail</c> names the
    /// member (how a missing or null member is reported depends on the parser).
    /// </summary>
    public static void AssertLocates(JsonElement problem, string parent, string member)
    {
        var own = parent.Length == 0 ? member : parent + "." + member;
        var path = problem.TryGetProperty("path", out var p) ? p.GetString() : null;
        if (path == own)
        {
            return;
        }

        Assert.True(path == (parent.Length == 0 ? null : parent), $"path '{path}' is neither '{own}' nor '{parent}'");
        Assert.Contains($"'{member}'", Detail(problem), StringComparison.Ordinal);
    }

    /// <summary>
    /// Checks that the response is the 413 of a body past the service's own limit, <paramref name="limit"/>: the same
    /// fields whether a declared length, the endpoint's count or Kestrel's limit refused it, and no strategy takes it.
    /// </summary>
    public static async Task AssertPastServiceLimitAsync(HttpResponseMessage response, string strategy, long limit)
    {
        var problem = await AssertAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal($"The body is larger than the limit of {limit} bytes. No strategy takes it here.", Detail(problem));
        Assert.Equal(strategy, problem.GetProperty("strategy").GetString());
        Assert.Equal(limit, problem.GetProperty("maxBodyBytes").GetInt64());
        Assert.Empty(problem.GetProperty("strategiesTakingBody").EnumerateArray());
    }

    /// <summary>The <c>detail</c> member, which every problem from the endpoint has.</summary>
    public static string Detail(JsonElement problem)
    {
        var detail = problem.GetProperty("detail").GetString();
        Assert.False(string.IsNullOrWhiteSpace(detail));
        return detail!;
    }
}
