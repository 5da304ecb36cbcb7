using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Keys;

/// <summary>
/// An access key that is empty or short enough to guess stops the host as it starts, with one line naming the setting
/// and never the value; so does a value set on <c>Signing:AccessKeys</c> itself, which would bind to no key and leave
/// the endpoints open in silence.
/// </summary>
public sealed class AccessKeyValidationTests
{
    // 31 characters: one short of AccessKeys.MinimumLength.
    private const string ShortKey = "0123456789abcdefghijklmnopqrstu";

    [Theory]
    [InlineData(ShortKey, "too short")]
    [InlineData("   ", "empty")]
    [InlineData("", "empty")]
    public void A_short_or_empty_key_stops_the_host_naming_it(string key, string says)
    {
        var failure = AssertStartFails(new() { ["Signing:AccessKeys:ops"] = key, ["Signing:AccessKeys:good"] = AccessKeyServerFactory.FirstKey }, key);

        Assert.Contains("Signing:AccessKeys:ops", failure, StringComparison.Ordinal);
        Assert.Contains(says, failure, StringComparison.Ordinal);
        Assert.DoesNotContain("Signing:AccessKeys:good", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void A_key_set_on_the_section_itself_stops_the_host()
    {
        var failure = AssertStartFails(new() { ["Signing:AccessKeys"] = AccessKeyServerFactory.FirstKey }, AccessKeyServerFactory.FirstKey);

        Assert.Contains("Signing:AccessKeys takes keys by name", failure, StringComparison.Ordinal);
    }

    private static string AssertStartFails(Dictionary<string, string?> settings, string key)
    {
        settings["Signing:Key"] = TestKey.Base64;
        var (thrown, failure, log) = StartupFailure.Catch(SigningServerFactory.TestingEnvironment, settings);
        if (key.Trim().Length > 0)
        {
            Assert.DoesNotContain(key.Trim(), thrown.ToString(), StringComparison.Ordinal);
            Assert.All(log, entry => Assert.DoesNotContain(key.Trim(), entry, StringComparison.Ordinal));
        }

        return failure;
    }
}
