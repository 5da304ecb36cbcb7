using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Startup;

/// <summary>
/// Where SigningServer listens when it is not told with <c>--urls</c>: .NET's container images say it with
/// <c>ASPNETCORE_HTTP_PORTS</c> (8080 by default), which SigningServer's own default of localhost:7071 overrode, so in a
/// container it listened only inside it.
/// </summary>
public sealed class ListenAddressTests
{
    [Fact]
    public async Task It_listens_on_the_port_aspnetcore_http_ports_names()
    {
        var port = FreePort();
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            WorkingDirectory = AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "SigningServer.dll"));
        foreach (var inherited in start.Environment.Keys.Where(k => k.StartsWith("ASPNETCORE_", StringComparison.Ordinal) || k.StartsWith("OTEL_", StringComparison.Ordinal)).ToList())
        {
            start.Environment.Remove(inherited);
        }

        start.Environment["ASPNETCORE_ENVIRONMENT"] = "Production";
        start.Environment["ASPNETCORE_HTTP_PORTS"] = port.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["Signing__Key"] = TestKey.Base64;

        using var process = Process.Start(start) ?? throw new InvalidOperationException("SigningServer did not start.");
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        try
        {
            using var client = new HttpClient { Timeout = TimeSpan.FromSeconds(2) };
            var health = new Uri($"http://127.0.0.1:{port}/api/health");
            var answered = HttpStatusCode.ServiceUnavailable;
            var deadline = DateTime.UtcNow.AddSeconds(30);
            while (answered != HttpStatusCode.OK && !process.HasExited && DateTime.UtcNow < deadline)
            {
                try
                {
                    using var response = await client.GetAsync(health);
                    answered = response.StatusCode;
                }
                catch (HttpRequestException)
                {
                    await Task.Delay(200);
                }
            }

            Assert.Equal(HttpStatusCode.OK, answered);
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill();
            }

            await process.WaitForExitAsync();
            _ = await output + await errors;
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
