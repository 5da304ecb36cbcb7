using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>One signature checked against a value computed outside .NET altogether.</summary>
public sealed class KnownAnswerTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(32)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignature = "a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c";

    [Fact]
    public async Task Empty_envelope_signs_to_the_value_python_computes_with_every_strategy()
    {
        using var client = factory.CreateClient();

        foreach (var strategy in factory.StrategyNames)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json("{ \"widgets\" : [ ] }"));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
            Assert.Equal(EmptyEnvelopeSignature, signed!.Signature);
            Assert.Equal("{\"widgets\":[]}".Length, signed.BytesSigned);
            Assert.Equal(0, signed.WidgetCount);
        }
    }
}
