using System.Net;
using System.Text;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>The body must be UTF-8 without a byte order mark; anything else is 400, never silently repaired.</summary>
public sealed class BodyEncodingTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData(new byte[] { 0xC3, 0x28 })]
    [InlineData(new byte[] { 0xFF, 0xFE })]
    [InlineData(new byte[] { 0xED, 0xA0, 0x80 })]
    [InlineData(new byte[] { 0xF4, 0x90, 0x80, 0x80 })]
    public async Task Invalid_utf8_inside_a_string_is_400(byte[] bad)
    {
        using var client = factory.CreateClient();
        var valid = Bodies.Canonical(widgetCount: 1, seed: 51);
        var at = Encoding.UTF8.GetString(valid).IndexOf("\"property0\":\"", StringComparison.Ordinal) + "\"property0\":\"".Length;
        byte[] body = [.. valid[..at], .. bad, .. valid[at..]];

        using var response = await client.PostAsync("/api/sign", Bodies.Json(body));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.Detail(problem);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Byte_order_mark_is_400()
    {
        using var client = factory.CreateClient();
        byte[] body = [0xEF, 0xBB, 0xBF, .. Bodies.Canonical(widgetCount: 1, seed: 52)];

        using var response = await client.PostAsync("/api/sign", Bodies.Json(body));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task Utf16_body_is_400()
    {
        using var client = factory.CreateClient();
        var body = Encoding.Unicode.GetBytes(Encoding.UTF8.GetString(Bodies.Canonical(widgetCount: 1, seed: 53)));

        using var response = await client.PostAsync("/api/sign", Bodies.Json(body));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
