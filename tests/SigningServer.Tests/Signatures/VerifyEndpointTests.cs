using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using Signing.Http.Keys;
using Signing.Http.Stats;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>
/// <c>POST /api/verify</c> with one key: a signature the server made verifies, and a changed body, a changed
/// signature, another key's signature or a malformed header never does.
/// </summary>
public sealed class VerifyEndpointTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(32)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignature = "a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c";

    // The same envelope under another key, bytes 100 to 131:
    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(100,132)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignatureUnderOtherKey = "f1ccd23eeafaa03f7215af451c861b7da5b6d95265cddcf12d58500ab2342d87";

    private static readonly byte[] EmptyEnvelope = Bodies.Utf8("{ \"widgets\" : [ ] }");

    [Fact]
    public async Task Signature_python_computes_verifies_with_every_strategy_naming_the_key()
    {
        using var client = factory.CreateClient();

        foreach (var strategy in factory.StrategyNames)
        {
            using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "?strategy=" + strategy, VerifyRequests.Header(EmptyEnvelopeSignature));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            var verified = await response.Content.ReadFromJsonAsync<VerifyResponse>();
            Assert.Equal(SigningKeyRing.DefaultKeyId, verified!.KeyId);
            Assert.Equal(strategy, verified.Strategy);
            Assert.Equal("HMAC-SHA256", verified.Algorithm);
            Assert.Equal(0, verified.WidgetCount);
            Assert.Equal("{\"widgets\":[]}".Length, verified.BytesSigned);
        }
    }

    [Fact]
    public async Task What_sign_returns_verifies_and_uppercase_hex_is_the_same_signature()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 5, seed: 71);
        var signed = await VerifyRequests.SignAsync(client, body);

        using var lower = await VerifyRequests.VerifyAsync(client, body, "", VerifyRequests.Header(signed.Signature));
        using var upper = await VerifyRequests.VerifyAsync(client, body, "", VerifyRequests.Header(signed.Signature.ToUpperInvariant()));

        Assert.Equal(HttpStatusCode.OK, lower.StatusCode);
        Assert.Equal(HttpStatusCode.OK, upper.StatusCode);
        Assert.Equal(5, (await lower.Content.ReadFromJsonAsync<VerifyResponse>())!.WidgetCount);
        Assert.Equal(0, factory.Pool.InUseBytes);
    }

    [Fact]
    public async Task Same_envelope_in_another_layout_verifies_because_the_canonical_form_is_signed()
    {
        using var client = factory.CreateClient();

        using var response = await VerifyRequests.VerifyAsync(client, Bodies.Utf8("{\n  \"widgets\": []\n}\n"), "", VerifyRequests.Header(EmptyEnvelopeSignature));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task Tampered_body_is_401_problem()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 2, seed: 72);
        var signed = await VerifyRequests.SignAsync(client, body);
        var tampered = Bodies.Canonical(widgetCount: 2, seed: 73);
        Assert.NotEqual(TestKey.SignatureOf(body), TestKey.SignatureOf(tampered));

        using var response = await VerifyRequests.VerifyAsync(client, tampered, "", VerifyRequests.Header(signed.Signature));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal("Signature mismatch", problem.GetProperty("title").GetString());
        Assert.Equal("The signature does not match the envelope under any configured key.", ProblemResponse.Detail(problem));
        Assert.Equal(0, factory.Pool.InUseBytes);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(31)]
    [InlineData(63)]
    public async Task Signature_with_one_digit_changed_is_401(int digit)
    {
        using var client = factory.CreateClient();
        var chars = EmptyEnvelopeSignature.ToCharArray();
        chars[digit] = chars[digit] == '0' ? '1' : '0';

        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", VerifyRequests.Header(new string(chars)));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.Unauthorized);
    }

    [Fact]
    public async Task Signature_made_with_another_key_is_401()
    {
        using var client = factory.CreateClient();

        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", VerifyRequests.Header(EmptyEnvelopeSignatureUnderOtherKey));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.Unauthorized);
    }

    [Theory]
    [InlineData("")]
    [InlineData("a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c")]
    [InlineData("sha1=a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c")]
    [InlineData("SHA256=a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c")]
    [InlineData("sha256=")]
    [InlineData("sha256=a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129")]
    [InlineData("sha256=a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c0")]
    [InlineData("sha256=a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129g")]
    [InlineData("sha256= a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129")]
    [InlineData("sha256=a27a2c97-6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c")]
    public async Task Malformed_header_is_400_problem_not_a_mismatch(string header)
    {
        using var client = factory.CreateClient();

        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", header);

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal("Malformed signature header", problem.GetProperty("title").GetString());
        Assert.Contains(SignatureHeader.Name, ProblemResponse.Detail(problem), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Missing_header_is_400_problem()
    {
        using var client = factory.CreateClient();

        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
    }

    [Fact]
    public async Task Header_given_twice_is_400_problem_even_when_both_are_right()
    {
        using var client = factory.CreateClient();
        var header = VerifyRequests.Header(EmptyEnvelopeSignature);

        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", header, header);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
    }

    [Fact]
    public async Task Invalid_envelope_is_the_same_400_problem_as_sign_gives()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Utf8("{\"widgets\":[{\"id\":}]}");

        using var verify = await VerifyRequests.VerifyAsync(client, body, "", VerifyRequests.Header(EmptyEnvelopeSignature));
        using var sign = await client.PostAsync("/api/sign", Bodies.Json(body));

        var fromVerify = await ProblemResponse.AssertAsync(verify, HttpStatusCode.BadRequest);
        var fromSign = await ProblemResponse.AssertAsync(sign, HttpStatusCode.BadRequest);
        Assert.Equal("widgets[0].id", fromVerify.GetProperty("path").GetString());
        Assert.Equal(fromSign.GetProperty("detail").GetString(), fromVerify.GetProperty("detail").GetString());
        Assert.Equal(0, factory.Pool.InUseBytes);
    }

    [Fact]
    public async Task Unknown_strategy_and_non_json_content_are_rejected_as_sign_rejects_them()
    {
        using var client = factory.CreateClient();
        var header = VerifyRequests.Header(EmptyEnvelopeSignature);

        using var unknown = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "?strategy=nope", header);
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/verify") { Content = new ByteArrayContent(EmptyEnvelope) };
        request.Content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("text/plain");
        request.Headers.Add(SignatureHeader.Name, header);
        using var text = await client.SendAsync(request);

        var problem = await ProblemResponse.AssertAsync(unknown, HttpStatusCode.BadRequest);
        Assert.True(problem.TryGetProperty("validStrategies", out _));
        await ProblemResponse.AssertAsync(text, HttpStatusCode.UnsupportedMediaType);
    }

    [Fact]
    public async Task Verify_is_not_counted_as_a_sign_in_the_stats()
    {
        using var client = factory.CreateClient();
        var before = await StrategyRequestsAsync(client, "utf8");

        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "?strategy=utf8", VerifyRequests.Header(EmptyEnvelopeSignature));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await VerifyRequests.SignAsync(client, EmptyEnvelope, "?strategy=utf8");

        Assert.Equal(before + 1, await StrategyRequestsAsync(client, "utf8"));
    }

    private static async Task<long> StrategyRequestsAsync(HttpClient client, string strategy)
    {
        var stats = await client.GetFromJsonAsync<ServiceStats>("/api/stats");
        return stats!.Strategies.Single(s => s.Name == strategy).Requests;
    }
}
