using System.Net;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Input;

/// <summary>
/// Text that is not JSON under RFC 8259 but that Newtonsoft.Json reads anyway. Signing it means signing a document
/// the caller did not send (the server signs its canonical re-serialization), so the contract says 400.
/// </summary>
public sealed class NonStandardJsonTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Theory]
    [InlineData("{'widgets':[]}")]
    [InlineData("{widgets:[]}")]
    [InlineData("{\"widgets\":[]/* comment */}")]
    [InlineData("{\"widgets\":[],}")]
    [InlineData("{\"widgets\":[],\"widgets\":[]}")]
    [InlineData("{\"Widgets\":[]}")]
    public async Task Non_standard_json_is_400(string json)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(json));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        ProblemResponse.Detail(problem);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }
}
