using Signing.Http;

namespace SigningServer.Tests.Limits;

/// <summary>
/// The 413 for a body over a strategy's own limit says why in words a client can act on: the strategy and its limit,
/// the budget's reason only when that limit is below the configured one, and which strategies would take the body.
/// Over HTTP the tests see the same problem; here every branch of its words is pinned.
/// </summary>
public sealed class BodyTooLargeProblemTests
{
    [Fact]
    public void A_limit_below_the_configured_one_is_the_budget_s_and_the_strategies_that_take_the_body_are_named()
    {
        var problem = SignProblems.BodyTooLarge("string", limit: 1_000, maxRequestBodyBytes: 2_000, ["utf8", "transcode"]).ProblemDetails;

        Assert.Equal(413, problem.Status);
        Assert.Equal("Body too large", problem.Title);
        Assert.Equal(
            "The body is larger than the limit of 1000 bytes with strategy 'string', whose charge for a larger body would " +
            "not fit this server's in-flight memory budget. Strategies that take it: utf8, transcode.",
            problem.Detail);
        Assert.Equal("string", problem.Extensions["strategy"]);
        Assert.Equal(1_000L, problem.Extensions["maxBodyBytes"]);
        Assert.Equal(["utf8", "transcode"], Assert.IsAssignableFrom<IReadOnlyList<string>>(problem.Extensions["strategiesTakingBody"]));
    }

    [Fact]
    public void At_the_configured_limit_no_budget_reason_is_given_and_no_strategy_takes_the_body()
    {
        var problem = SignProblems.BodyTooLarge("transcode", limit: 2_000, maxRequestBodyBytes: 2_000, []).ProblemDetails;

        Assert.Equal("The body is larger than the limit of 2000 bytes. No strategy takes it here.", problem.Detail);
        Assert.Empty(Assert.IsAssignableFrom<IReadOnlyList<string>>(problem.Extensions["strategiesTakingBody"]));
    }
}
