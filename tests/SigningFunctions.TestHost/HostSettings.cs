using System.Globalization;
using System.Text.Json;

namespace SigningFunctions.TestHost;

/// <summary>
/// The two host settings that change what a client of this app sees, read where the host reads them: the route prefix
/// from the published host.json (<c>extensions.http.routePrefix</c>, <c>api</c> when absent) and the front end's body
/// limit from the <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c> app setting (100 MiB when absent, as on the host).
/// </summary>
/// <param name="RoutePrefix">Prefix of every HTTP route, without slashes; may be empty.</param>
/// <param name="MaxRequestBodySize">The largest body the front end accepts before the worker sees it.</param>
internal sealed record HostSettings(string RoutePrefix, long MaxRequestBodySize)
{
    private const long DefaultMaxRequestBodySize = 100 * 1024 * 1024;

    /// <summary>Reads the settings for the app in <paramref name="appDirectory"/>.</summary>
    /// <param name="appDirectory">The published app.</param>
    /// <param name="environment">The caller's settings, which win over the process environment.</param>
    /// <returns>The settings.</returns>
    public static HostSettings Read(string appDirectory, IReadOnlyDictionary<string, string?> environment)
    {
        var prefix = "api";
        var hostJson = Path.Combine(appDirectory, "host.json");
        if (File.Exists(hostJson))
        {
            using var document = JsonDocument.Parse(File.ReadAllBytes(hostJson), new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip });
            if (document.RootElement.TryGetProperty("extensions", out var extensions)
                && extensions.TryGetProperty("http", out var http)
                && http.TryGetProperty("routePrefix", out var routePrefix)
                && routePrefix.ValueKind == JsonValueKind.String)
            {
                prefix = routePrefix.GetString()!.Trim('/');
            }
        }

        var limit = environment.TryGetValue("FUNCTIONS_REQUEST_BODY_SIZE_LIMIT", out var set)
            ? set
            : Environment.GetEnvironmentVariable("FUNCTIONS_REQUEST_BODY_SIZE_LIMIT");
        var maxBody = long.TryParse(limit, NumberStyles.None, CultureInfo.InvariantCulture, out var parsed) && parsed > 0 ? parsed : DefaultMaxRequestBodySize;
        return new HostSettings(prefix, maxBody);
    }
}
