using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing;
using Signing.Http;
using Signing.Http.Access;
using Signing.Http.Memory;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Keys;

/// <summary>
/// The access keys, their endpoint filter and the per-strategy body limits refuse a missing argument by its name,
/// before they use it: a wiring mistake then fails where it is made, not as a null reference later.
/// </summary>
public sealed class ArgumentGuardTests
{
    [Fact]
    public void Access_keys_refuse_missing_keys_or_comparer()
    {
        Assert.Equal("keys", Assert.Throws<ArgumentNullException>(() => new AccessKeys(null!, (_, _) => true)).ParamName);
        Assert.Equal("equals", Assert.Throws<ArgumentNullException>(() => new AccessKeys(["a-key-long-enough-to-be-valid"], null!)).ParamName);
    }

    [Fact]
    public async Task The_access_key_filter_refuses_a_missing_next_step_even_when_open()
    {
        var filter = new AccessKeyFilter(new AccessKeys([]));
        var context = new DefaultEndpointFilterInvocationContext(new DefaultHttpContext());

        var refused = await Assert.ThrowsAsync<ArgumentNullException>(async () => await filter.InvokeAsync(context, null!));

        Assert.Equal("next", refused.ParamName);
    }

    [Fact]
    public async Task The_access_key_filter_refuses_a_missing_context_even_when_open()
    {
        // Open, the filter would otherwise hand the missing context straight on to the endpoint.
        var filter = new AccessKeyFilter(new AccessKeys([]));

        var refused = await Assert.ThrowsAsync<ArgumentNullException>(async () => await filter.InvokeAsync(null!, _ => ValueTask.FromResult<object?>(null)));

        Assert.Equal("context", refused.ParamName);
    }

    [Fact]
    public async Task Body_limits_refuse_missing_settings_budget_or_strategies()
    {
        await using var services = TestServices.Build(TestKey.Base64);
        var options = services.GetRequiredService<IOptions<SigningOptions>>().Value;
        var budget = services.GetRequiredService<InFlightBudget>();
        var strategies = services.GetRequiredService<SigningStrategies>();

        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => StrategyBodyLimits.Create(null!, budget, strategies)).ParamName);
        Assert.Equal("budget", Assert.Throws<ArgumentNullException>(() => StrategyBodyLimits.Create(options, null!, strategies)).ParamName);
        Assert.Equal("strategies", Assert.Throws<ArgumentNullException>(() => StrategyBodyLimits.Create(options, budget, null!)).ParamName);
    }
}
