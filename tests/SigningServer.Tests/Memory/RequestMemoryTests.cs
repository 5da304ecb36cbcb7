using System.Net;
using Signing.Http.Memory;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Memory;

/// <summary>
/// The parse part of a request's charge holds: what parsing allocates (the envelope, and what dies with it) stays
/// under <see cref="RequestMemory.EnvelopeBytesPerBodyByte"/> per body byte, as measured on bodies large and small.
/// </summary>
public sealed class RequestMemoryTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData(30)]
    [InlineData(3_000)]
    [InlineData(30_000)]
    public async Task Parsing_allocates_no_more_than_the_envelope_is_charged(int widgetCount)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount, seed: 7, Signing.Generation.GeneratedText.Awkward);

        using var response = await client.PostAsync("/api/sign?strategy=utf8", Bodies.Json(body));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var parsed = CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes)!.Value;
        Assert.True(
            parsed <= RequestMemory.EnvelopeBytesPerBodyByte * body.Length + RequestMemory.FixedBytes(factory.Pool.Options.BlockSize),
            $"Parsing {body.Length:N0} bytes allocated {parsed:N0}.");
    }
}
