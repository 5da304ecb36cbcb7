using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http.Keys;
using Signing.Http.Memory;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Reading;

/// <summary>
/// A request cancelled (its client gone) after its body has been read and parsed but before it is signed is not
/// signed: the endpoint checks once more between reading and signing, since signing a large envelope is the costliest
/// phase and nobody is left to take its answer. The body stream cancels the request as it reports the body's end, so
/// the read itself completes and only the check can stop the sign.
/// </summary>
public sealed class CancellationAfterReadTests
{
    [Theory]
    [InlineData("")]
    [InlineData("?strategy=recyclable")]
    public async Task Sign_cancelled_after_the_read_is_not_signed(string query)
    {
        await using var services = TestServices.Build(TestKey.Base64);
        using var aborted = new CancellationTokenSource();
        var body = new ObservedBodyStream(Bodies.Canonical(widgetCount: 3, seed: 5), aborted.Cancel);
        var context = DirectRequest.Post(services, "/api/sign", body, declaredLength: null, query);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => DirectRequest.SignAsync(context, aborted.Token));

        // Read and parsed (the parse is timed), never signed (no sign phase), and nothing is left charged.
        Assert.True(body.Reads > 1);
        Assert.Contains("parse;dur=", context.Response.Headers[SignCostHeaders.ServerTiming].ToString(), StringComparison.Ordinal);
        Assert.False(context.Response.Headers.ContainsKey(SignCostHeaders.SignAllocatedBytes));
        Assert.Equal(0, services.GetRequiredService<InFlightBudget>().InUseBytes);
    }

    [Fact]
    public async Task Verify_cancelled_after_the_read_is_not_checked()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        using var aborted = new CancellationTokenSource();
        var envelope = Bodies.Canonical(widgetCount: 3, seed: 5);
        var body = new ObservedBodyStream(envelope, aborted.Cancel);
        var context = DirectRequest.Post(services, "/api/verify", body, declaredLength: null);
        context.Request.Headers[SignatureHeader.Name] = VerifyRequests.Header(TestKey.SignatureOf(envelope));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => DirectRequest.VerifyAsync(context, aborted.Token));

        Assert.True(body.Reads > 1);
        Assert.Equal(0, services.GetRequiredService<InFlightBudget>().InUseBytes);
    }

    [Fact]
    public async Task The_same_body_uncancelled_is_signed()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var envelope = Bodies.Canonical(widgetCount: 3, seed: 5);
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(envelope), declaredLength: null);

        await DirectRequest.SignAsync(context, CancellationToken.None);

        Assert.Equal(StatusCodes.Status200OK, context.Response.StatusCode);
        Assert.Contains("sign;dur=", context.Response.Headers[SignCostHeaders.ServerTiming].ToString(), StringComparison.Ordinal);
    }
}
