using System.Collections.Concurrent;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// The smallest OTLP/HTTP metrics receiver: Kestrel on a loopback port the OS picks, keeping every body posted to
/// <c>/v1/metrics</c> and answering with an empty <c>ExportMetricsServiceResponse</c> (zero bytes of protobuf), which
/// is success. It does not decode the protobuf: metric, tag and meter names travel in it as plain UTF-8 strings.
/// </summary>
internal sealed class OtlpReceiver : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly ConcurrentQueue<Export> _exports;

    private OtlpReceiver(WebApplication app, ConcurrentQueue<Export> exports)
    {
        _app = app;
        _exports = exports;
    }

    /// <summary>The receiver's base address: what OTEL_EXPORTER_OTLP_ENDPOINT is set to.</summary>
    public Uri Endpoint => new(_app.Urls.Single());

    /// <summary>Every export received so far, in arrival order.</summary>
    public IReadOnlyCollection<Export> Exports => _exports;

    public static async Task<OtlpReceiver> StartAsync()
    {
        var exports = new ConcurrentQueue<Export>();
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
        var app = builder.Build();
        app.MapPost("/v1/metrics", async (HttpRequest request) =>
        {
            using var body = new MemoryStream();
            await request.Body.CopyToAsync(body);
            exports.Enqueue(new Export(body.ToArray(), request.Headers.ToDictionary(h => h.Key, h => h.Value.ToString(), StringComparer.OrdinalIgnoreCase)));
            return Results.Bytes([], "application/x-protobuf");
        });
        await app.StartAsync();
        return new OtlpReceiver(app, exports);
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    /// <summary>One POST: its body as Latin-1, which keeps every byte and shows the UTF-8 names, and its headers.</summary>
    internal sealed record Export(byte[] Body, IReadOnlyDictionary<string, string> Headers)
    {
        public string Text => System.Text.Encoding.Latin1.GetString(Body);

        /// <summary>
        /// Whether the body holds the attribute <paramref name="key"/> = <paramref name="value"/> (a string), as OTLP
        /// encodes it: a KeyValue message, field 1 the key, field 2 an AnyValue whose field 1 is the string. Both must
        /// be shorter than 126 bytes, so that every length is one byte.
        /// </summary>
        public bool HasAttribute(string key, string value)
        {
            var k = System.Text.Encoding.UTF8.GetBytes(key);
            var v = System.Text.Encoding.UTF8.GetBytes(value);
            Assert.True(k.Length < 126 && v.Length < 126, "Only short keys and values are encoded with one-byte lengths.");
            byte[] encoded = [0x0a, (byte)k.Length, .. k, 0x12, (byte)(v.Length + 2), 0x0a, (byte)v.Length, .. v];
            return Body.AsSpan().IndexOf(encoded) >= 0;
        }
    }
}
