using System.Net;
using System.Net.Http.Json;
using System.Security.Cryptography;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Signing.Http;
using Signing.Http.Keys;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Startup;

/// <summary>
/// A missing, malformed, short or publicly known key stops the host as it starts, with a message that names
/// <c>Signing:Key</c> and never repeats the key.
/// </summary>
public sealed class StartupValidationTests
{
    private const string Production = "Production";

    // python3 -c "import base64; print(base64.b64encode(bytes(range(31))).decode())"
    private const string ThirtyOneByteKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==";

    [Fact]
    public void Missing_key_stops_the_host_naming_the_setting()
    {
        var message = AssertStartFails(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?>());

        Assert.Contains("is missing", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    public void Blank_key_stops_the_host_naming_the_setting(string key)
    {
        var message = AssertStartFails(SigningServerFactory.TestingEnvironment, WithKey(key));

        Assert.Contains("is missing", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("not base64 at all, but long enough to be a key!!")]
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")]
    [InlineData("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=%")]
    public void Malformed_base64_key_stops_the_host_without_repeating_it(string key)
    {
        var message = AssertStartFails(SigningServerFactory.TestingEnvironment, WithKey(key), key);

        Assert.Contains("not valid base64", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Thirty_one_byte_key_stops_the_host_without_repeating_it()
    {
        Assert.Equal(31, Convert.FromBase64String(ThirtyOneByteKey).Length);

        var message = AssertStartFails(SigningServerFactory.TestingEnvironment, WithKey(ThirtyOneByteKey), ThirtyOneByteKey);

        Assert.Contains("31 bytes", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(Production)]
    [InlineData("Staging")]
    [InlineData(SigningServerFactory.TestingEnvironment)]
    public void Development_key_outside_development_stops_the_host_without_repeating_it(string environment)
    {
        var message = AssertStartFails(environment, WithKey(DevelopmentKey.Base64), DevelopmentKey.Base64);

        Assert.Contains("development key", message, StringComparison.Ordinal);
        Assert.Contains(environment, message, StringComparison.Ordinal);
    }

    [Fact]
    public void Development_key_with_surrounding_whitespace_is_still_refused_in_production()
    {
        AssertStartFails(Production, WithKey(" " + DevelopmentKey.Base64 + "\n"), DevelopmentKey.Base64);
    }

    [Fact]
    public void Body_limit_out_of_range_stops_the_host_naming_the_setting()
    {
        var settings = WithKey(TestKey.Base64);
        settings["Signing:MaxRequestBodyBytes"] = "10";

        var (_, failure, _) = StartupFailure.Catch(SigningServerFactory.TestingEnvironment, settings);

        Assert.Contains("Signing:MaxRequestBodyBytes", failure, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("BlockSize", "0")]
    [InlineData("BlockSize", "1023")]
    [InlineData("BlockSize", "16777217")]
    [InlineData("LargeBufferMultiple", "0")]
    [InlineData("MaximumBufferSize", "65536")]
    [InlineData("MaximumBufferSize", "9437185")]
    [InlineData("MaximumSmallPoolFreeBytes", "0")]
    [InlineData("MaximumLargePoolFreeBytes", "0")]
    [InlineData("MaximumStreamCapacity", "1048576")]
    public void Stream_pool_setting_out_of_range_stops_the_host_naming_it(string name, string value)
    {
        var settings = WithKey(TestKey.Base64);
        settings["Signing:RecyclableMemoryStream:" + name] = value;

        var (_, failure, _) = StartupFailure.Catch(SigningServerFactory.TestingEnvironment, settings);

        Assert.Contains("Signing:RecyclableMemoryStream:" + name + " ", failure, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Signing:Buffers:MaximumArrayLength")]
    [InlineData("Signing:Buffers:InitialCapacityBytes")]
    public void Settings_of_the_replaced_pool_stop_the_host_naming_the_replacement(string setting)
    {
        var settings = WithKey(TestKey.Base64);
        settings[setting] = "4096";

        var (_, failure, _) = StartupFailure.Catch(SigningServerFactory.TestingEnvironment, settings);

        Assert.Contains("Signing:Buffers is no longer read", failure, StringComparison.Ordinal);
        Assert.Contains("Signing:RecyclableMemoryStream", failure, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Stream_pool_settings_reach_the_library_and_its_capacity_follows_the_body_limit()
    {
        var settings = WithKey(TestKey.Base64);
        settings["Signing:RecyclableMemoryStream:BlockSize"] = "65536";
        settings["Signing:RecyclableMemoryStream:MaximumSmallPoolFreeBytes"] = "1048576";
        settings["Signing:MaxRequestBodyBytes"] = "100000";
        using var factory = new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, settings);
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", Bodies.Json(Bodies.Canonical(widgetCount: 3, seed: 1)));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(65536, factory.Pool.Options.BlockSize);
        Assert.Equal(1048576, factory.Pool.Options.MaximumSmallPoolFreeBytes);
        // Three times the body limit (a canonical document's most), rounded up to whole 64 KiB blocks: 300,000 -> 327,680.
        Assert.Equal(327_680, factory.Pool.Options.MaximumStreamCapacity);
    }

    [Fact]
    public async Task Development_key_is_accepted_in_development()
    {
        using var factory = new ConfiguredServerFactory("Development", WithKey(DevelopmentKey.Base64));

        await AssertSignsWithAsync(factory, Convert.FromBase64String(DevelopmentKey.Base64));
    }

    [Fact]
    public async Task Development_key_comes_from_appsettings_development_json_in_development()
    {
        using var factory = new ConfiguredServerFactory("Development", new Dictionary<string, string?>());

        await AssertSignsWithAsync(factory, Convert.FromBase64String(DevelopmentKey.Base64));
    }

    [Fact]
    public async Task Key_of_its_own_is_accepted_in_production()
    {
        using var factory = new ConfiguredServerFactory(Production, WithKey(TestKey.Base64));

        await AssertSignsWithAsync(factory, TestKey.Bytes);
    }

    private static Dictionary<string, string?> WithKey(string key) => new() { ["Signing:Key"] = key };

    // Returns the validation message after checking that it names the setting and that neither the exception
    // (message, inner exceptions, stack) nor anything the host logged contains the key.
    private static string AssertStartFails(string environment, Dictionary<string, string?> settings, string? key = null)
    {
        var (thrown, failure, log) = StartupFailure.Catch(environment, settings);

        Assert.Contains("Signing:Key", failure, StringComparison.Ordinal);
        if (key is not null)
        {
            Assert.DoesNotContain(key.Trim(), thrown.ToString(), StringComparison.Ordinal);
            Assert.All(log, entry => Assert.DoesNotContain(key.Trim(), entry, StringComparison.Ordinal));
        }

        return failure;
    }

    private static async Task AssertSignsWithAsync(SigningServerFactory factory, byte[] key)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount: 2, seed: 31);

        using var response = await client.PostAsync("/api/sign", Bodies.Json(body));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var signed = await response.Content.ReadFromJsonAsync<SignResponse>();
        Assert.Equal(Convert.ToHexStringLower(HMACSHA256.HashData(key, body)), signed!.Signature);
    }
}
