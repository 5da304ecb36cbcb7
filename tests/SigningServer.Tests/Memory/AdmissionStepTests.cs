using System.Globalization;
using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing.Http;
using Signing.Http.Memory;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Memory;

/// <summary>
/// An envelope strategy's charges are each taken before the step they pay for, and a step that does not fit ends the
/// request there with 503: a request whose parse does not fit is refused before its body is parsed (a malformed body
/// too, so it is never a 400), and one whose signing does not fit is refused unsigned.
/// </summary>
public sealed class AdmissionStepTests
{
    private const long Budget = 1024 * 1024;

    [Fact]
    public async Task A_request_whose_parse_does_not_fit_is_503_before_its_body_is_parsed()
    {
        await using var services = Build();
        var body = Encoding.UTF8.GetBytes("{\"widgets\":[{\"id\":}]}");
        var blockSize = BlockSize(services);

        // Room for the body's block, not for the envelope parsed from it.
        var room = RequestMemory.ForArrivedBody(body.Length, blockSize) + InFlightBudget.BytesPerPermit;
        Assert.True(room < RequestMemory.ForParse(body.Length, blockSize));
        var refused = await DirectRequest.SignWithRoomAsync(services, room, body, "recyclable");

        DirectRequest.AssertOverloaded(refused);
        Assert.False(refused.Response.Headers.ContainsKey(SignCostHeaders.ParseAllocatedBytes), "a request refused before its parse reports none");
    }

    [Fact]
    public async Task A_request_whose_signing_does_not_fit_is_503_and_not_signed()
    {
        await using var services = Build();
        var body = Bodies.Canonical(widgetCount: 20, seed: 3);
        var blockSize = BlockSize(services);
        var strategy = services.GetRequiredService<Signing.SigningStrategies>()["string"];

        // Room for the body and its envelope, not for what the string strategy holds on top while it signs.
        var room = RequestMemory.ForParse(body.Length, blockSize) + InFlightBudget.BytesPerPermit;
        Assert.True(room < RequestMemory.For(strategy, body.Length, body.Length, blockSize));
        var refused = await DirectRequest.SignWithRoomAsync(services, room, body, "string");

        DirectRequest.AssertOverloaded(refused);
        // Its cost headers show the parse it paid for and no sign.
        Assert.True(refused.Response.Headers.ContainsKey(SignCostHeaders.ParseAllocatedBytes), "the parse is reported");
        Assert.False(refused.Response.Headers.ContainsKey(SignCostHeaders.SignAllocatedBytes), "a refused request reports no sign");
    }

    private static ServiceProvider Build() => TestServices.Build(new Dictionary<string, string?>
    {
        ["Signing:Key"] = TestKey.Base64,
        ["Signing:MaxInFlightBytes"] = Budget.ToString(CultureInfo.InvariantCulture),
    });

    private static int BlockSize(IServiceProvider services) =>
        services.GetRequiredService<IOptions<SigningOptions>>().Value.RecyclableMemoryStream.BlockSize;
}
