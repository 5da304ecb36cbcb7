using System.Net;
using System.Text.Json;
using SigningFunctions.TestHost;

namespace SigningFunctions.Tests;

/// <summary>Reads a problem details response (RFC 9457) from the worker, with the worker's own words when it is not one.</summary>
internal static class WorkerProblems
{
    /// <summary>Asserts <paramref name="response"/> is a problem with <paramref name="status"/> and returns its body.</summary>
    public static async Task<JsonElement> AssertAsync(HttpResponseMessage response, HttpStatusCode status, FunctionsTestHost host)
    {
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(
            response.StatusCode == status,
            $"Expected {(int)status}, got {(int)response.StatusCode}: {text}{Environment.NewLine}The worker said:{Environment.NewLine}{host.Output.Tail()}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(text);
        Assert.Equal((int)status, problem.RootElement.GetProperty("status").GetInt32());
        return problem.RootElement.Clone();
    }
}
