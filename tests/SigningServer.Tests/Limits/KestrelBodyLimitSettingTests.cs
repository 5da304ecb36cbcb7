using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Signing.Http;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Limits;

/// <summary>
/// Kestrel's body limit, made while the host is built and before the settings are checked, takes
/// <c>Signing:MaxRequestBodyBytes</c> only when it is a whole number from 1 KiB to 2 GiB, both included; anything else
/// leaves it at the 32 MiB default, so that the validator, not Kestrel, is what refuses the setting, naming it.
/// </summary>
public sealed class KestrelBodyLimitSettingTests
{
    private const long Default = 32L * 1024 * 1024;

    [Theory]
    [InlineData("1024", 1024L)]
    [InlineData("2147483647", 2_147_483_647L)]
    [InlineData("1023", Default)]
    [InlineData("2147483648", Default)]
    [InlineData("-1", Default)]
    [InlineData("one MiB", Default)]
    [InlineData("", Default)]
    // Hexadecimal, which the configuration binder reads: Kestrel kept 32 MiB while the endpoint took 64 MiB.
    [InlineData("0x4000000", 64L * 1024 * 1024)]
    public async Task Kestrel_takes_the_body_limit_only_within_the_range_the_validator_accepts(string configured, long expected)
    {
        await using var services = TestServices.Build(new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = configured,
        });

        var limits = services.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits;

        Assert.Equal(expected, limits.MaxRequestBodySize);
    }

    [Theory]
    [InlineData("1024")]
    [InlineData("0x4000000")]
    [InlineData("0X400")]
    [InlineData("+4096")]
    [InlineData("2147483647")]
    public async Task Kestrel_s_limit_is_the_one_the_endpoint_binds(string configured)
    {
        await using var services = TestServices.Build(new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = configured,
        });

        var limits = services.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits;

        Assert.Equal(services.GetRequiredService<IOptions<SigningOptions>>().Value.MaxRequestBodyBytes, limits.MaxRequestBodySize);
    }

    // What the Functions worker does after AddSigning: its Kestrel drains a refused body instead of closing the host's
    // connection (the worker's tests send such bodies through the test host).
    [Fact]
    public void Behind_the_Functions_host_Kestrel_keeps_no_body_limit_of_its_own()
    {
        var limits = new KestrelServerLimits();
        SigningKestrelLimits.ApplyBodyLimit(limits, 1024);

        SigningKestrelLimits.ApplyBehindFunctionsHost(limits);

        Assert.Null(limits.MaxRequestBodySize);
    }
}
