using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Signing;
using Signing.Generation;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>Valid requests: every strategy, any letter case, the default, and the signature itself.</summary>
public sealed class StrategyHappyPathTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    // The suite's loops over factory.StrategyNames cover what this says they are: every strategy the README documents.
    [Fact]
    public void The_server_offers_every_documented_strategy() =>
        Assert.Equal(["string", "memorystream", "recyclable", "recyclablehash", "streaming", "utf8", "transcode"], factory.StrategyNames);

    [Fact]
    public async Task Every_strategy_signs_the_canonical_bytes_with_the_configured_key()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 5, seed: 7);
        var expected = TestKey.SignatureOf(body);

        Assert.NotEmpty(factory.StrategyNames);
        foreach (var name in factory.StrategyNames)
        {
            var signed = await SignAsync(client, body, "?strategy=" + name);

            Assert.Equal(expected, signed.Signature);
            Assert.Equal(name, signed.Strategy);
            Assert.Equal("HMAC-SHA256", signed.Algorithm);
            Assert.Equal(5, signed.WidgetCount);
            Assert.Equal(body.Length, signed.BytesSigned);
        }

        Assert.Equal(0, factory.Pool.InUseBytes);
    }

    [Fact]
    public async Task Every_strategy_gives_the_same_signature_for_awkward_text()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 20, seed: 11, GeneratedText.Awkward);

        var signatures = new HashSet<string>(StringComparer.Ordinal);
        foreach (var name in factory.StrategyNames)
        {
            signatures.Add((await SignAsync(client, body, "?strategy=" + name)).Signature);
        }

        Assert.Equal(TestKey.SignatureOf(body), Assert.Single(signatures));
    }

    [Theory]
    [InlineData("MemoryStream", "memorystream")]
    [InlineData("STRING", "string")]
    [InlineData("Recyclable", "recyclable")]
    public async Task Strategy_names_ignore_case_and_the_response_gives_the_canonical_name(string requested, string canonical)
    {
        Assert.Contains(canonical, factory.StrategyNames);
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 1, seed: 3);

        var signed = await SignAsync(client, body, "?strategy=" + requested);

        Assert.Equal(canonical, signed.Strategy);
        Assert.Equal(TestKey.SignatureOf(body), signed.Signature);
    }

    [Theory]
    [InlineData("")]
    [InlineData("?other=1")]
    public async Task Without_a_strategy_the_default_signs(string query)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 1, seed: 4);

        var signed = await SignAsync(client, body, query);

        Assert.Equal(SigningStrategies.DefaultName, signed.Strategy);
        Assert.Equal("recyclable", signed.Strategy);
        Assert.Equal(TestKey.SignatureOf(body), signed.Signature);
    }

    [Fact]
    public async Task Response_is_json_with_exactly_the_documented_camel_case_members()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 2, seed: 5);

        using var response = await client.PostAsync("/api/sign", Bodies.Json(body));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var names = document.RootElement.EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal);
        Assert.Equal(["algorithm", "bytesSigned", "keyId", "signature", "strategy", "widgetCount"], names);
        Assert.Matches("^[0-9a-f]{64}$", document.RootElement.GetProperty("signature").GetString());
    }

    [Fact]
    public async Task Signature_is_over_the_canonical_form_not_the_bytes_sent()
    {
        using var client = factory.CreateClient();
        var canonical = Bodies.Canonical(widgetCount: 2, seed: 6);
        var indented = Bodies.Utf8(Newtonsoft.Json.Linq.JToken.Parse(CanonicalJson.Utf8.GetString(canonical)).ToString(Newtonsoft.Json.Formatting.Indented));
        Assert.NotEqual(canonical, indented);

        var signed = await SignAsync(client, indented, "");

        Assert.Equal(TestKey.SignatureOf(canonical), signed.Signature);
        Assert.Equal(canonical.Length, signed.BytesSigned);
    }

    private static async Task<SignResponse> SignAsync(HttpClient client, byte[] body, string query)
    {
        using var response = await client.PostAsync("/api/sign" + query, Bodies.Json(body));
        Assert.True(response.StatusCode == HttpStatusCode.OK, await response.Content.ReadAsStringAsync());
        return (await response.Content.ReadFromJsonAsync<SignResponse>())!;
    }
}
