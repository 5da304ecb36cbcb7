using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Startup;

/// <summary>
/// SigningServer reads its appsettings.json from its own folder wherever it is started from: an operator's
/// <c>dotnet /opt/signing/SigningServer.dll</c> from another working directory keeps the settings shipped beside it.
/// </summary>
public sealed class ContentRootTests
{
    [Fact]
    public async Task Started_from_another_folder_it_keeps_the_log_filters_of_its_appsettings_json()
    {
        var elsewhere = Directory.CreateTempSubdirectory("signing-cwd-");
        try
        {
            Assert.False(File.Exists(Path.Combine(elsewhere.FullName, "appsettings.json")));
            await using var server = await SigningServerProcess.StartAsync(new Dictionary<string, string>(), elsewhere.FullName);
            using (var client = new HttpClient { BaseAddress = server.BaseAddress })
            using (var response = await client.PostAsync(new Uri("/api/sign", UriKind.Relative), Bodies.Json(Bodies.Canonical(widgetCount: 1, seed: 91))))
            {
                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            }

            Assert.Equal(0, await server.StopAsync());

            // Information from Microsoft.* reaches the output ('Now listening on' is Microsoft.Hosting.Lifetime's), but
            // not from Microsoft.AspNetCore: appsettings.json sets that category to Warning. Read from the working
            // directory, no appsettings.json would be found and every request would log 'Request starting'.
            Assert.Contains("Now listening on", server.Output, StringComparison.Ordinal);
            Assert.DoesNotContain("Request starting", server.Output, StringComparison.Ordinal);
        }
        finally
        {
            elsewhere.Delete(recursive: true);
        }
    }
}
