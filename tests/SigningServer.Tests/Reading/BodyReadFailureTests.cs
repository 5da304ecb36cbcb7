using System.Text.Json;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Reading;

/// <summary>
/// How a read of the body can fail, each answered as what it is: a silent client is a 408 that closes the connection,
/// a connection lost mid-body, a chunk size over int.MaxValue or a body that does not decompress is the client's 400
/// with its own detail, a body over the limit found while reading is a 413 that closes the connection too, and a fault
/// of the server's own escapes.
/// </summary>
public sealed class BodyReadFailureTests
{
    [Fact]
    public async Task A_silent_client_is_408_and_the_connection_is_closed()
    {
        await using var services = TestServices.Build(new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:BodyStallTimeout"] = "00:00:01",
        });
        var context = DirectRequest.Post(services, "/api/sign", FailingBodyStream.Silent(), declaredLength: null);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status408RequestTimeout, context.Response.StatusCode);
        Assert.Equal("close", context.Response.Headers.Connection.ToString());
        Assert.Equal("The body brought less than 16 KiB in 1 s; the request was cut off.", DirectRequest.ProblemDetail(context));
    }

    [Fact]
    public async Task A_body_found_too_large_while_reading_is_413_and_closes_the_connection()
    {
        await using var services = TestServices.Build(DirectRequest.WithBodyLimit(4096));
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(Bodies.Padded(4097)), declaredLength: null);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        Assert.Equal("close", context.Response.Headers.Connection.ToString());
    }

    [Fact]
    public async Task A_connection_lost_mid_body_is_the_clients_400()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var context = DirectRequest.Post(services, "/api/sign", FailingBodyStream.Throwing(new IOException("reset")), declaredLength: null);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status400BadRequest, context.Response.StatusCode);
        Assert.Equal("The connection closed before the body was complete.", DirectRequest.ProblemDetail(context));
    }

    [Fact]
    public async Task A_chunk_size_over_int_MaxValue_is_the_clients_400_with_kestrels_detail()
    {
        // Kestrel's word for it: a bare IOException over the overflow, where a lost connection's has a socket's error.
        await using var services = TestServices.Build(TestKey.Base64);
        var failure = new IOException("Bad chunk size data.", new OverflowException());
        var context = DirectRequest.Post(services, "/api/sign", FailingBodyStream.Throwing(failure), declaredLength: null);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status400BadRequest, context.Response.StatusCode);
        Assert.Equal("Bad chunk size data.", DirectRequest.ProblemDetail(context));
    }

    [Fact]
    public async Task A_body_that_does_not_decompress_is_400_saying_so()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var context = DirectRequest.Post(services, "/api/sign", new MemoryStream(Bodies.Canonical(1, 1)), declaredLength: null);
        context.Request.Headers.ContentEncoding = "gzip";

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status400BadRequest, context.Response.StatusCode);
        Assert.Equal("The body is not valid data of its Content-Encoding.", DirectRequest.ProblemDetail(context));
    }

    [Fact]
    public async Task A_fault_that_is_not_the_clients_escapes()
    {
        // An InvalidOperationException is a client's bad data only from the Brotli decoder; from the body itself it is a fault.
        await using var services = TestServices.Build(TestKey.Base64);
        var failure = new InvalidOperationException("a broken stream");
        var context = DirectRequest.Post(services, "/api/sign", FailingBodyStream.Throwing(failure), declaredLength: null);

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => DirectRequest.SignAsync(context));

        Assert.Same(failure, thrown);
    }

    [Fact]
    public async Task A_full_budget_is_503_with_retry_after_counted_as_refused()
    {
        await using var services = TestServices.Build(new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = "4096",
            ["Signing:MaxInFlightBytes"] = "1048576",
        });
        using var held = services.GetRequiredService<Signing.Http.Memory.InFlightBudget>().Open();
        Assert.True(held.TryRaiseTo(1024 * 1024));
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(Bodies.Canonical(1, 1)), declaredLength: null);

        await DirectRequest.SignAsync(context);

        DirectRequest.AssertOverloaded(context);
        var stats = await StrategyStatsAsync(services, "recyclable");
        Assert.Equal(1, stats.GetProperty("requests").GetInt64());
        Assert.Equal(1, stats.GetProperty("refused").GetInt64());
    }

    private static async Task<JsonElement> StrategyStatsAsync(IServiceProvider services, string strategy)
    {
        var context = new DefaultHttpContext { RequestServices = services };
        context.Request.Method = HttpMethods.Get;
        using var body = new MemoryStream();
        context.Response.Body = body;
        await services.GetRequiredService<StatsEndpoint>().Handle(context.Request).ExecuteAsync(context);
        using var document = JsonDocument.Parse(body.ToArray());
        return document.RootElement.GetProperty("strategies").EnumerateArray().Single(s => s.GetProperty("name").GetString() == strategy).Clone();
    }
}
