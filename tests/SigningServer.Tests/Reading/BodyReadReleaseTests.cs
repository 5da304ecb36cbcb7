using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.RequestDecompression;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using Signing;
using Signing.Http;
using Signing.Http.Memory;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Reading;

/// <summary>
/// What reading a request's body holds is released as soon as the body has been read, whether the envelope came back
/// or the request was refused: a compressed body's decompressor (zlib's native state, freed only when it is disposed,
/// and the pipe's buffers over it), the stall clock's timer of a read that had to wait, and the host's read of a body
/// the transcoder refused. A server taking many requests must not leave the first two to the finalizer, nor the host
/// a read it cannot drain.
/// </summary>
public sealed class BodyReadReleaseTests
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task The_decompressor_is_disposed_once_the_body_has_been_read(bool wellFormed)
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var decompression = new RecordingDecompression(services.GetRequiredService<IRequestDecompressionProvider>());
        var reader = Reader(services, decompression, TimeProvider.System);
        var body = wellFormed ? Bodies.Canonical(widgetCount: 3, seed: 7) : Encoding.UTF8.GetBytes("{\"widgets\":[{\"id\":}]}");
        using var content = NegotiationTests.Compressed(body, "gzip");
        var compressed = await content.ReadAsByteArrayAsync();
        var context = DirectRequest.Post(services, "/api/sign", new MemoryStream(compressed), compressed.Length);
        context.Request.Headers.ContentEncoding = "gzip";
        using var charge = services.GetRequiredService<InFlightBudget>().Open();

        var read = await reader.ReadAsync(context.Request, Recyclable(services), charge, new RequestPhases(), CancellationToken.None);

        Assert.Equal(wellFormed, read.Envelope is not null);
        Assert.Equal(wellFormed ? null : StatusCodes.Status400BadRequest, read.Problem?.StatusCode);
        // A disposed decompressor can no longer be read.
        Assert.False(Assert.IsType<System.IO.Compression.GZipStream>(decompression.Decompressor).CanRead);
    }

    [Fact]
    public async Task The_stall_clock_s_timer_is_disposed_once_the_body_has_been_read()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var time = new QueuedBeatTimeProvider();
        var reader = Reader(services, services.GetRequiredService<IRequestDecompressionProvider>(), time);
        var body = new HeldBodyStream(Bodies.Canonical(widgetCount: 3, seed: 7));
        var context = DirectRequest.Post(services, "/api/sign", body, body.Length);
        using var charge = services.GetRequiredService<InFlightBudget>().Open();

        // The first read waits for the client, so its stall clock made a timer.
        var reading = reader.ReadAsync(context.Request, Recyclable(services), charge, new RequestPhases(), CancellationToken.None);
        Assert.Equal(1, time.TimersMade);
        body.Release();
        var read = await reading;

        Assert.NotNull(read.Envelope);
        Assert.Equal(0, time.LiveTimers);
    }

    [Fact]
    public async Task A_body_the_transcoder_refuses_is_handed_back_for_the_host_to_drain()
    {
        // Kestrel drains what a request left unread before it takes the connection's next request, and cannot while a
        // read is still held ("Reading is already in progress"): it would drop the connection, and the client's
        // keep-alive with it. The transcoder refuses this body while it holds its read.
        await using var services = TestServices.Build(TestKey.Base64);
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[{\"id\":}]}");
        var host = new KestrelStyleBodyReader(PipeReader.Create(new ReadOnlySequence<byte>(body)));
        var context = DirectRequest.Post(services, "/api/sign", Stream.Null, body.Length, "?strategy=transcode");
        context.Features.Set<IRequestBodyPipeFeature>(new HostBody(host));

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status400BadRequest, context.Response.StatusCode);
        var drained = await host.ReadAsync();
        host.AdvanceTo(drained.Buffer.End);
    }

    private static EnvelopeRequestReader Reader(IServiceProvider services, IRequestDecompressionProvider decompression, TimeProvider time) => new(
        services.GetRequiredService<RecyclableMemoryStreamManager>(),
        decompression,
        services.GetRequiredService<IOptions<SigningOptions>>(),
        services.GetRequiredService<StrategyBodyLimits>(),
        services.GetRequiredService<SlowBodies>(),
        time);

    private static ISigningStrategy Recyclable(IServiceProvider services) => services.GetRequiredService<SigningStrategies>()["recyclable"];

    // The server's own decompression, keeping the decompressor it hands out so the test can see whether it was disposed.
    private sealed class RecordingDecompression(IRequestDecompressionProvider inner) : IRequestDecompressionProvider
    {
        public Stream? Decompressor { get; private set; }

        public Stream? GetDecompressionStream(HttpContext context) => Decompressor = inner.GetDecompressionStream(context);
    }

    // The host's body reader, as the server's request feature hands it to the endpoint.
    private sealed class HostBody(PipeReader reader) : IRequestBodyPipeFeature
    {
        public PipeReader Reader => reader;
    }

    // A body the client holds back until the test releases it: the first read waits for the client, so its clock runs.
    private sealed class HeldBodyStream(byte[] body) : MemoryStream(body)
    {
        private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void Release() => _released.SetResult();

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            await _released.Task;
            return await base.ReadAsync(buffer, cancellationToken);
        }
    }
}
