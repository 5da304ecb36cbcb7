using System.Globalization;
using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Newtonsoft.Json;
using Signing;
using Signing.Http;
using Signing.Http.Memory;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Memory;

/// <summary>
/// A strategy is charged for the canonical document it will hold, not for one as long as the body: strings of raw
/// U+0085 (two bytes each, six once escaped) make the document three times the body, and a strategy that holds several
/// bytes per document byte would otherwise hold about twice what it was charged. Where that charge could never fit the
/// budget, the body is a 413 naming the strategies that take it, not a 503 to retry in vain.
/// </summary>
public sealed class DocumentChargeTests
{
    private const long Budget = 1024 * 1024;

    [Theory]
    [InlineData("string")]
    [InlineData("memorystream")]
    public async Task A_body_of_raw_U0085_is_charged_for_its_escaped_document(string strategy)
    {
        await using var services = Build();
        var body = Escaping(widgetCount: 2, charactersPerString: 200);
        var document = Canonical(body);
        Assert.Equal(body.Length + (2 * 10 * 200 * 4), document.Length);
        var blockSize = services.GetRequiredService<IOptions<SigningOptions>>().Value.RecyclableMemoryStream.BlockSize;
        var signer = services.GetRequiredService<SigningStrategies>()[strategy];

        // Room for a document as long as the body is not enough.
        var asLongAsTheBody = RequestMemory.For(signer, body.Length, body.Length, blockSize) + InFlightBudget.BytesPerPermit;
        DirectRequest.AssertOverloaded(await DirectRequest.SignWithRoomAsync(services, asLongAsTheBody, body, strategy));

        // Room for the escaped document (and an instant's most, 10 bytes a widget, which these do not use) is.
        var forTheDocument = RequestMemory.For(signer, body.Length, document.Length + (2 * 10), blockSize) + InFlightBudget.BytesPerPermit;
        var signed = await DirectRequest.SignWithRoomAsync(services, forTheDocument, body, strategy);
        Assert.Equal(StatusCodes.Status200OK, signed.Response.StatusCode);
        Assert.Equal(0, services.GetRequiredService<InFlightBudget>().InUseBytes);
    }

    [Fact]
    public async Task A_body_whose_document_no_budget_this_size_holds_is_413_naming_the_strategies_that_take_it()
    {
        await using var services = Build();

        // 60 KB, within string's body limit in a 1 MiB budget (86,149: StrategyBodyLimitsTests has the sum), but its
        // document of about 180 KB would make string's charge 294,912 + 3 × 60 KB + 5.5 × 180 KB, some 1.46 MB.
        var body = Escaping(widgetCount: 15, charactersPerString: 200);
        Assert.InRange(body.Length, 55_000, 65_000);
        Assert.True(body.Length <= services.GetRequiredService<StrategyBodyLimits>()["string"]);
        var context = DirectRequest.Post(services, "/api/sign", new MemoryStream(body), body.Length, "?strategy=string");

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        var problem = DirectRequest.Problem(context);
        Assert.Equal("string", problem.GetProperty("strategy").GetString());
        Assert.Equal(Canonical(body).Length + (15 * 10), problem.GetProperty("documentBytes").GetInt64());
        // memorystream (4.5 per document byte) no more than string; the rest hold 1.5 or less, or no document.
        Assert.Equal(
            ["recyclable", "recyclablehash", "streaming", "utf8", "transcode"],
            problem.GetProperty("strategiesTakingBody").EnumerateArray().Select(e => e.GetString()!));
        Assert.Equal(0, services.GetRequiredService<InFlightBudget>().InUseBytes);
    }

    private static ServiceProvider Build() => TestServices.Build(new Dictionary<string, string?>
    {
        ["Signing:Key"] = TestKey.Base64,
        ["Signing:MaxInFlightBytes"] = Budget.ToString(CultureInfo.InvariantCulture),
    });

    // A canonical body of widgetCount widgets whose ten strings are each charactersPerString raw U+0085.
    private static byte[] Escaping(int widgetCount, int charactersPerString)
    {
        var value = new string('\u0085', charactersPerString);
        var widgets = Enumerable.Range(0, widgetCount).Select(i =>
            $"{{\"id\":\"{new Guid(i, 0, 0, new byte[8])}\"," +
            string.Concat(Enumerable.Range(0, 10).Select(p => $"\"property{p}\":\"{value}\",")) +
            "\"createdUtc\":\"2024-03-10T10:34:56Z\"}");
        return Encoding.UTF8.GetBytes("{\"widgets\":[" + string.Join(",", widgets) + "]}");
    }

    // The canonical document as Newtonsoft writes it, the length the charge must cover.
    private static byte[] Canonical(byte[] body) =>
        CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeParser.Parse(body), CanonicalJson.Settings));
}
