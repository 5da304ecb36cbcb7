using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
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
}
