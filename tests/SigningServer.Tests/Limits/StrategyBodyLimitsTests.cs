using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing.Http.Memory;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// Each strategy's own body limit within the in-flight budget, worked out by hand from <see cref="RequestMemory"/>'s
/// figures for a 64 MiB budget and 128 KiB blocks (an empty request is charged 294,912 bytes): the largest body whose
/// charge, for the longest document a body without raw U+0085, U+2028 or U+2029 makes, fits, capped by the body
/// limit, and a canonical body of exactly that is signed; a declared body over a strategy's limit is refused unread
/// with a 413 that names the strategy, its limit and the strategies that take the body (one of exactly a strategy's limit among them),
/// as is one found over it while reading; a budget only some strategies fit leaves the others no body; and a budget
/// no strategy fits is a bad setting.
/// </summary>
public sealed class StrategyBodyLimitsTests
{
    private const long Budget = 64L * 1024 * 1024;

    public static TheoryData<string, long> Limits() => new()
    {
        // A body of b bytes is charged 294,912 + 3b (body and envelope) + what the strategy holds per byte of the longest
        // document it can make, b + 10 for each of its at most b / 221 widgets (an instant sent as a date alone):
        // string, 5.5 per byte: 294,912 + 3b + 5.5 (b + 10 floor(b / 221)) <= 67,108,864 up to b = 7,636,873.
        { "string", 7_636_873 },
        // 4.5 per byte, the same way
        { "memorystream", 8_673_062 },
        // 1.5 per byte
        { "recyclable", 14_626_928 },
        // nothing per document byte: (67,108,864 - 294,912) / 3.0 = 22,271,317.3
        { "utf8", 22_271_317 },
        // / 2.0 = 33,406,976, under the 32 MiB body limit
        { "transcode", 33_406_976 },
    };

    [Theory]
    [MemberData(nameof(Limits))]
    public async Task Each_strategy_takes_the_largest_body_whose_charge_fits_the_budget(string strategy, long expected)
    {
        await using var services = TestServices.Build(WithBudget(Budget));

        Assert.Equal(expected, services.GetRequiredService<StrategyBodyLimits>()[strategy]);
    }

    [Fact]
    public async Task A_large_budget_leaves_every_strategy_the_body_limit()
    {
        await using var services = TestServices.Build(WithBudget(1024L * 1024 * 1024));
        var limits = services.GetRequiredService<StrategyBodyLimits>();

        Assert.All(limits.Names, name => Assert.Equal(32L * 1024 * 1024, limits[name]));
    }

    [Fact]
    public async Task A_declared_body_over_the_strategys_own_limit_is_refused_unread_naming_the_strategies_that_take_it()
    {
        await using var services = TestServices.Build(WithBudget(Budget));
        var body = new ObservedBodyStream(Bodies.Padded(8_000_000));
        var context = DirectRequest.Post(services, "/api/sign", body, 8_000_000, "?strategy=string");

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        Assert.Equal(0, body.Reads);
        var problem = DirectRequest.Problem(context);
        Assert.Equal("string", problem.GetProperty("strategy").GetString());
        Assert.Equal(7_636_873, problem.GetProperty("maxBodyBytes").GetInt64());
        Assert.Equal(
            ["memorystream", "recyclable", "recyclablehash", "streaming", "utf8", "transcode"],
            problem.GetProperty("strategiesTakingBody").EnumerateArray().Select(e => e.GetString()!));
        Assert.Contains("7636873 bytes with strategy 'string'", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        Assert.Equal(0, services.GetRequiredService<InFlightBudget>().InUseBytes);
    }

    [Fact]
    public async Task A_body_found_over_the_strategys_own_limit_while_reading_names_the_strategies_that_take_it()
    {
        // No declared length: the body is found too large as it arrives, and the client is told as much as if it had
        // declared it (a smaller budget, so that the body is small).
        await using var services = TestServices.Build(WithBudget(1024 * 1024));
        var limit = services.GetRequiredService<StrategyBodyLimits>()["string"];
        Assert.True(limit < 32L * 1024 * 1024);
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(Bodies.Padded((int)limit + 1)), declaredLength: null, "?strategy=string");

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        var problem = DirectRequest.Problem(context);
        Assert.Equal("string", problem.GetProperty("strategy").GetString());
        Assert.Equal(limit, problem.GetProperty("maxBodyBytes").GetInt64());
        Assert.Equal(
            ["memorystream", "recyclable", "recyclablehash", "streaming", "utf8", "transcode"],
            problem.GetProperty("strategiesTakingBody").EnumerateArray().Select(e => e.GetString()!));
    }

    [Fact]
    public async Task A_budget_in_which_no_strategy_can_take_a_body_is_a_bad_setting()
    {
        var settings = WithBudget(1024 * 1024);
        settings["Signing:RecyclableMemoryStream:BlockSize"] = (1024 * 1024).ToString(CultureInfo.InvariantCulture);
        await using var services = TestServices.Build(settings);

        var failure = Assert.Throws<OptionsValidationException>(() => services.GetRequiredService<StrategyBodyLimits>());

        // An empty request: two 1 MiB blocks and two 16 KiB chunks, 2,129,920 bytes. The line says what to change.
        Assert.Equal(
            "Signing:MaxInFlightBytes (1048576 bytes) cannot hold a request of any size with any strategy: " +
            "even an empty one is charged 2129920 bytes (Signing:RecyclableMemoryStream:BlockSize 1048576 bytes). " +
            "Raise the first or lower the second.",
            Assert.Single(failure.Failures));
    }

    [Fact]
    public async Task A_budget_only_the_cheaper_strategies_fit_starts_with_no_body_for_the_costlier_ones()
    {
        // 507,901-byte blocks leave 6 bytes of the 1 MiB budget past an empty request (2 * 507,901 + 32,768 =
        // 1,048,570): per body byte string needs 8.5 and memorystream 7.5, so neither takes a byte; recyclable and
        // recyclablehash (4.5, 5 for one byte) and streaming (3.5, 7 for two) take 1, utf8 (3) 2 and transcode (2) 3.
        var settings = WithBudget(1024 * 1024);
        settings["Signing:RecyclableMemoryStream:BlockSize"] = "507901";
        await using var services = TestServices.Build(settings);

        var limits = services.GetRequiredService<StrategyBodyLimits>().ToDictionary();

        Assert.Equal(
            new Dictionary<string, long>
            {
                ["string"] = 0,
                ["memorystream"] = 0,
                ["recyclable"] = 1,
                ["recyclablehash"] = 1,
                ["streaming"] = 1,
                ["utf8"] = 2,
                ["transcode"] = 3,
            },
            limits);
    }

    [Fact]
    public async Task A_body_of_exactly_a_strategys_limit_is_one_that_strategy_takes()
    {
        // 8,673,062 bytes is memorystream's limit itself (see Limits): too large for string, which lists memorystream
        // among the strategies that take it.
        await using var services = TestServices.Build(WithBudget(Budget));
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(Bodies.Padded(8_673_062)), 8_673_062, "?strategy=string");

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status413PayloadTooLarge, context.Response.StatusCode);
        Assert.Equal(
            ["memorystream", "recyclable", "recyclablehash", "streaming", "utf8", "transcode"],
            DirectRequest.Problem(context).GetProperty("strategiesTakingBody").EnumerateArray().Select(e => e.GetString()!));
    }

    [Theory]
    [InlineData("string")]
    [InlineData("memorystream")]
    public async Task A_canonical_body_of_exactly_a_strategys_limit_is_signed_with_it(string strategy)
    {
        // Its document may be longer than the body (an instant sent as a date alone grows 10 bytes), which the limit
        // allows for: a body the limit admits is never refused for its document.
        await using var services = TestServices.Build(WithBudget(1024 * 1024));
        var limit = services.GetRequiredService<StrategyBodyLimits>()[strategy];
        var context = DirectRequest.Post(services, "/api/sign", new ObservedBodyStream(Bodies.Padded((int)limit)), limit, "?strategy=" + strategy);

        await DirectRequest.SignAsync(context);

        Assert.Equal(StatusCodes.Status200OK, context.Response.StatusCode);
        Assert.Equal(0, services.GetRequiredService<InFlightBudget>().InUseBytes);
    }

    private static Dictionary<string, string?> WithBudget(long bytes) => new()
    {
        ["Signing:Key"] = TestKey.Base64,
        ["Signing:MaxInFlightBytes"] = bytes.ToString(CultureInfo.InvariantCulture),
    };
}
