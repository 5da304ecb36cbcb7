using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http.Keys;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// A body whose <c>Content-Length</c> already says it is over <c>Signing:MaxRequestBodyBytes</c> is refused with 413
/// before a byte of it is read, on every strategy path and on verify: reading up to the limit first would also end in
/// 413, but only after holding the limit's worth of the client's bytes. The body stream records every read, so the
/// refusal is seen to happen unread; just at the limit, the same body is read and signed.
/// </summary>
public sealed class DeclaredLengthRefusalTests
{
    private const int Limit = 4096;

    [Theory]
    [InlineData("")]
    [InlineData("?strategy=recyclable")]
    [InlineData("?strategy=transcode")]
    public async Task Sign_refuses_a_declared_length_over_the_limit_without_reading_the_body(string query)
    {
        await using var services = TestServices.Build(DirectRequest.WithBodyLimit(Limit));
        var body = new ObservedBodyStream(Bodies.Padded(Limit + 1));
        var context = DirectRequest.Post(services, "/api/sign", body, Limit + 1, query);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        Assert.Contains(Limit.ToString(CultureInfo.InvariantCulture), DirectRequest.ProblemDetail(context), StringComparison.Ordinal);
        Assert.Equal(0, body.Reads);
    }

    [Fact]
    public async Task Verify_refuses_a_declared_length_over_the_limit_without_reading_the_body()
    {
        await using var services = TestServices.Build(DirectRequest.WithBodyLimit(Limit));
        var body = new ObservedBodyStream(Bodies.Padded(Limit + 1));
        var context = DirectRequest.Post(services, "/api/verify", body, Limit + 1);
        context.Request.Headers[SignatureHeader.Name] = VerifyRequests.Header(new string('0', 2 * SignatureHeader.HmacBytes));

        await DirectRequest.VerifyAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        Assert.Equal(0, body.Reads);
    }

    [Fact]
    public async Task A_declared_length_of_exactly_the_limit_is_read_and_signed()
    {
        await using var services = TestServices.Build(DirectRequest.WithBodyLimit(Limit));
        var body = new ObservedBodyStream(Bodies.Padded(Limit));
        var context = DirectRequest.Post(services, "/api/sign", body, Limit);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status200OK, context.Response.StatusCode);
        Assert.Equal(Limit, body.BytesRead);
    }

    [Fact]
    public async Task Refusal_unread_gives_back_everything_it_was_charged()
    {
        await using var services = TestServices.Build(DirectRequest.WithBodyLimit(Limit));
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(Bodies.Padded(Limit + 1)), Limit + 1);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        Assert.Equal(0, services.GetRequiredService<Signing.Http.Memory.InFlightBudget>().InUseBytes);
    }
}
