using System.Net;
using System.Net.Http.Json;
using Signing.Http;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>Signatures checked against values computed outside .NET altogether, through the server, with every strategy.</summary>
public sealed class KnownAnswerTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(32)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignature = "a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c";

    // One widget as a client might send it: members in reverse order, an upper-case Guid, escapes that need none, a
    // non-ASCII character escaped, and an instant with an offset and trailing zeros that crosses into March of a leap
    // year. Its canonical text, written by hand from the rules in CanonicalJson:
    //   {"widgets":[{"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","property0":"café","property1":"1","property2":"2","property3":"3","property4":"A/B","property5":"5","property6":"6","property7":"7","property8":"8","property9":"9","createdUtc":"2024-03-01T00:30:00.5Z"}]}
    // and its HMAC and length in UTF-8 from:
    //   python3 -c "import hmac,hashlib; c='<that text>'.encode(); print(hmac.new(bytes(range(32)), c, hashlib.sha256).hexdigest(), len(c))"
    private const string LooseWidget = """
        { "widgets" : [ { "createdUtc": "2024-02-29T23:30:00.5000000-01:00", "property9": "9", "property8": "8", "property7": "7",
          "property6": "6", "property5": "5", "property4": "\u0041\/B", "property3": "3", "property2": "2", "property1": "1",
          "property0": "caf\u00e9", "id": "6F9619FF-8B86-D011-B42D-00CF4FC964FF" } ] }
        """;

    private const string LooseWidgetSignature = "47d2d65113ffd48df1258f8362e00a499f749a0368cbc4e2405c92fead412ac4";

    [Fact]
    public async Task A_loosely_written_widget_signs_to_the_value_python_computes_with_every_strategy()
    {
        using var client = factory.CreateClient();

        foreach (var strategy in factory.StrategyNames)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(LooseWidget));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
            Assert.Equal((LooseWidgetSignature, 263L, 1), (signed!.Signature, signed.BytesSigned, signed.WidgetCount));
        }
    }

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
