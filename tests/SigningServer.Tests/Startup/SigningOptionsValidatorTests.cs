using Microsoft.Extensions.Configuration;
using Microsoft.IO;
using Signing.Http;
using Signing.Http.Keys;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Startup;

/// <summary>
/// Every rule of <see cref="SigningOptionsValidator"/> at its edges, just inside and just outside, on the options
/// object itself (no host): what passes adds no failure, and what fails adds exactly the one that names its setting.
/// </summary>
public sealed class SigningOptionsValidatorTests
{
    // Bytes 100 to 131, a key other than TestKey: python3 -c "import base64; print(base64.b64encode(bytes(range(100,132))).decode())"
    private const string OtherKeyBase64 = "ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM=";

    // python3 -c "import base64; print(base64.b64encode(bytes(range(31))).decode())"
    private const string ThirtyOneByteKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==";

    [Fact]
    public void The_defaults_with_a_key_pass()
    {
        var result = Validator().Validate(null, WithKey());

        Assert.True(result.Succeeded);
        Assert.Null(result.Failures);
    }

    [Theory]
    [InlineData("a")]
    [InlineData("Z9")]
    [InlineData("2025-06")]
    [InlineData("key_2")]
    [InlineData("v1.2")]
    [InlineData("-_.")]
    [InlineData("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
    public void Key_id_of_1_to_64_letters_digits_and_dash_underscore_dot_passes(string id)
    {
        var options = new SigningOptions { Keys = { [id] = TestKey.Base64 } };

        Assert.Empty(Failures(options));
    }

    [Theory]
    [InlineData("")]
    [InlineData("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
    [InlineData("a b")]
    [InlineData("a/b")]
    [InlineData("a:b")]
    [InlineData("a+b")]
    [InlineData("é")]
    [InlineData("\u0663")]
    public void Key_id_outside_the_rule_fails_without_naming_the_key(string id)
    {
        // An id that fails says so once: the key's own setting, which would carry the id, is not checked as well.
        var options = new SigningOptions { Keys = { [id] = ThirtyOneByteKey } };

        var failure = Assert.Single(Failures(options));

        Assert.Equal("Signing:Keys has a key whose id is not 1 to 64 ASCII letters, digits, '-', '_' or '.'.", failure);
    }

    [Fact]
    public void Missing_options_are_refused_by_name()
    {
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => Validator().Validate(null, null!)).ParamName);
    }

    [Fact]
    public void Bad_single_key_names_its_setting_and_environment_variable()
    {
        var failure = Assert.Single(Failures(WithKey(ThirtyOneByteKey)));

        Assert.StartsWith("Signing:Key (environment variable Signing__Key) ", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void Bad_key_under_a_valid_id_names_its_setting_and_environment_variable()
    {
        var options = new SigningOptions { Keys = { ["next"] = ThirtyOneByteKey } };

        var failure = Assert.Single(Failures(options));

        Assert.StartsWith("Signing:Keys:next (environment variable Signing__Keys__next) ", failure, StringComparison.Ordinal);
        Assert.Contains("31 bytes", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void Default_id_under_keys_fails_only_beside_the_single_key_form()
    {
        var alone = new SigningOptions { Keys = { [SigningKeyRing.DefaultKeyId] = OtherKeyBase64 } };
        var beside = new SigningOptions { Key = TestKey.Base64, Keys = { [SigningKeyRing.DefaultKeyId] = OtherKeyBase64 }, ActiveKeyId = "default" };

        Assert.Empty(Failures(alone));
        Assert.Equal(
            ["Signing:Keys:default has the id that Signing:Key already has; give it another id."],
            Failures(beside));
    }

    [Fact]
    public void Development_key_passes_in_development_only()
    {
        var options = WithKey(" " + DevelopmentKey.Base64 + "\n");

        Assert.Empty(Failures(options, "Development"));
        var failure = Assert.Single(Failures(options, "Production"));
        Assert.Equal("Signing:Key is the committed development key, which is refused in the 'Production' environment. Set a key of your own.", failure);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("  ")]
    public void One_key_needs_no_active_key_id(string? activeKeyId)
    {
        var options = new SigningOptions { Keys = { ["only"] = TestKey.Base64 }, ActiveKeyId = activeKeyId };

        Assert.Empty(Failures(options));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("  ")]
    public void Two_keys_without_an_active_key_id_fail_listing_the_ids(string? activeKeyId)
    {
        var options = new SigningOptions { Keys = { ["b"] = OtherKeyBase64, ["a"] = TestKey.Base64 }, ActiveKeyId = activeKeyId };

        var failure = Assert.Single(Failures(options));

        Assert.Equal(
            "Signing:ActiveKeyId (environment variable Signing__ActiveKeyId) is missing; with more than one key it must name the one that signs: one of a, b.",
            failure);
    }

    [Theory]
    [InlineData("a")]
    [InlineData(" b ")]
    public void Active_key_id_naming_a_key_passes_trimmed(string activeKeyId)
    {
        var options = new SigningOptions { Keys = { ["a"] = TestKey.Base64, ["b"] = OtherKeyBase64 }, ActiveKeyId = activeKeyId };

        Assert.Empty(Failures(options));
    }

    [Theory]
    [InlineData("c")]
    [InlineData("A")]
    public void Active_key_id_naming_no_key_fails_listing_only_the_valid_ids(string activeKeyId)
    {
        var options = new SigningOptions { Keys = { ["a"] = TestKey.Base64, ["a b"] = OtherKeyBase64 }, ActiveKeyId = activeKeyId };

        var failures = Failures(options);

        // The invalid id has its own failure; the list of ids leaves it out, so no message repeats it.
        Assert.Equal(2, failures.Count);
        Assert.Contains("Signing:ActiveKeyId names no configured key; configured ids: a.", failures);
    }

    [Theory]
    [InlineData(1023L, false)]
    [InlineData(1024L, true)]
    [InlineData(int.MaxValue, true)]
    [InlineData(int.MaxValue + 1L, false)]
    public void Body_limit_is_between_1_KiB_and_2_GiB(long maxRequestBodyBytes, bool valid)
    {
        var options = WithKey();
        options.MaxRequestBodyBytes = maxRequestBodyBytes;

        AssertOnly(options, valid, "Signing:MaxRequestBodyBytes must be from 1024 to 2147483647 bytes (1 KiB to a byte under 2 GiB).");
    }

    [Theory]
    [InlineData(null, true)]
    [InlineData(1024L * 1024 - 1, false)]
    [InlineData(1024L * 1024, true)]
    [InlineData(2L * 1024 * 1024 * 1024 * 1024 - 1024, true)]
    [InlineData(2L * 1024 * 1024 * 1024 * 1024 - 1023, false)]
    [InlineData(long.MaxValue, false)]
    [InlineData(-1L, false)]
    public void In_flight_limit_is_unset_or_between_1_MiB_and_what_the_budget_can_count(long? maxInFlightBytes, bool valid)
    {
        var options = WithKey();
        options.MaxInFlightBytes = maxInFlightBytes;

        AssertOnly(options, valid, "Signing:MaxInFlightBytes must be from 1048576 to 2199023254528 bytes (1 MiB to 1 KiB under 2 TiB), or unset to derive it from the memory available.");
    }

    [Theory]
    [InlineData(1000 * TimeSpan.TicksPerMillisecond - 1, false)]
    [InlineData(1000 * TimeSpan.TicksPerMillisecond, true)]
    [InlineData(10_000 * TimeSpan.TicksPerMillisecond, true)]
    [InlineData(10_000 * TimeSpan.TicksPerMillisecond + 1, false)]
    public void Stall_timeout_is_between_1_and_10_seconds(long ticks, bool valid)
    {
        var options = WithKey();
        options.BodyStallTimeout = TimeSpan.FromTicks(ticks);

        AssertOnly(options, valid, "Signing:BodyStallTimeout must be between 00:00:01 and 00:00:10.");
    }

    [Theory]
    [InlineData(null, true)]
    [InlineData(0, false)]
    [InlineData(-1, false)]
    [InlineData(1, true)]
    [InlineData(SigningOptions.MaxMaxConcurrentRequestsPerClient, true)]
    [InlineData(SigningOptions.MaxMaxConcurrentRequestsPerClient + 1, false)]
    public void Requests_per_client_are_from_1_to_10000_or_unlimited(int? most, bool valid)
    {
        var options = WithKey();
        options.MaxConcurrentRequestsPerClient = most;

        AssertOnly(options, valid, "Signing:MaxConcurrentRequestsPerClient must be from 1 to 10000 requests, or unset for no limit per client address.");
    }

    [Theory]
    [InlineData(1, false)]
    [InlineData(0, false)]
    [InlineData(2, true)]
    [InlineData(100, true)]
    [InlineData(SigningOptions.MaxMaxDecompressionRatio, true)]
    [InlineData(SigningOptions.MaxMaxDecompressionRatio + 1, false)]
    public void Decompression_ratio_is_from_2_to_a_million(int most, bool valid)
    {
        var options = WithKey();
        options.MaxDecompressionRatio = most;

        AssertOnly(options, valid, "Signing:MaxDecompressionRatio must be from 2 to 1000000.");
    }

    [Fact]
    public void Stream_pool_rules_are_part_of_the_validation()
    {
        var options = WithKey();
        options.RecyclableMemoryStream.MaximumSmallPoolFreeBytes = 0;

        var failure = Assert.Single(Failures(options));

        Assert.StartsWith("Signing:RecyclableMemoryStream:MaximumSmallPoolFreeBytes ", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void Stream_capacity_fails_when_configured_because_it_is_derived()
    {
        var configured = Configuration(new() { ["Signing:RecyclableMemoryStream:MaximumStreamCapacity"] = "1048576" });
        var neighbour = Configuration(new() { ["Signing:RecyclableMemoryStream:BlockSize"] = "131072" });

        Assert.Empty(Failures(WithKey(), configuration: neighbour));
        var failure = Assert.Single(Failures(WithKey(), configuration: configured));
        Assert.Equal(
            "Signing:RecyclableMemoryStream:MaximumStreamCapacity is not a setting: it follows Signing:MaxRequestBodyBytes. Remove it.",
            failure);
    }

    [Fact]
    public void Settings_of_the_replaced_pool_get_its_message_and_their_neighbours_do_not()
    {
        var replaced = Configuration(new() { ["Signing:Buffers:MaximumArrayLength"] = "4096" });
        var neighbour = Configuration(new() { ["Signing:BuffersOther"] = "4096", ["Other:Buffers:MaximumArrayLength"] = "4096" });

        Assert.DoesNotContain(Failures(WithKey(), configuration: neighbour), f => f.StartsWith("Signing:Buffers is no longer read", StringComparison.Ordinal));
        var failure = Assert.Single(Failures(WithKey(), configuration: replaced));
        Assert.StartsWith("Signing:Buffers is no longer read", failure, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Signing:MaxRequestBodyByte")]
    [InlineData("Signing:BuffersOther")]
    [InlineData("Signing:RecyclableMemoryStream:BlockSiz")]
    [InlineData("Signing:MetricsExport:StorageDir")]
    public void A_setting_nothing_reads_fails_naming_it(string setting)
    {
        var failure = Assert.Single(Failures(WithKey(), configuration: Configuration(new() { [setting] = "1" })));

        Assert.Equal($"{setting} is not a setting this app reads (misspelt?): rename or remove it.", failure);
    }

    // Each binds to nothing or fails in the binder with a message that names no setting: an access key nested a level
    // too deep would leave the endpoints open.
    [Theory]
    [InlineData("Signing:Key:x", "Signing:Key")]
    [InlineData("Signing:ActiveKeyId:x", "Signing:ActiveKeyId")]
    [InlineData("Signing:Keys:next:x", "Signing:Keys:next")]
    [InlineData("Signing:AccessKeys:ops:key", "Signing:AccessKeys:ops")]
    // Each of these started in silence (a helper's run, 1 December 2026); the last failed naming a bound, not the setting.
    [InlineData("Signing:BodyStallTimeout:x", "Signing:BodyStallTimeout")]
    [InlineData("Signing:RecyclableMemoryStream:BlockSize:x", "Signing:RecyclableMemoryStream:BlockSize")]
    [InlineData("Signing:MetricsExport:DisableOfflineStorage:x", "Signing:MetricsExport:DisableOfflineStorage")]
    [InlineData("Signing:MaxInFlightBytes:x", "Signing:MaxInFlightBytes")]
    public void A_setting_under_a_value_fails_naming_the_value(string setting, string value)
    {
        var failure = Assert.Single(Failures(WithKey(), configuration: Configuration(new() { [setting] = "1" })));

        Assert.Equal(
            $"{value} has settings under it; it is a value: set {value} (environment variable {value.Replace(":", "__", StringComparison.Ordinal)}) itself.",
            failure);
    }

    // Each bound to nothing and started in silence (a helper's run, 1 December 2026).
    [Theory]
    [InlineData("Signing:RecyclableMemoryStream")]
    [InlineData("Signing:MetricsExport")]
    [InlineData("Signing:Keys")]
    public void A_value_on_a_section_fails_naming_the_section(string section)
    {
        var failure = Assert.Single(Failures(WithKey(), configuration: Configuration(new() { [section] = "5" })));

        Assert.Equal(
            $"{section} takes settings under it, not a value: set {section}:<setting> (environment variable {section.Replace(":", "__", StringComparison.Ordinal)}__<setting>), not {section} itself.",
            failure);
    }

    [Fact]
    public void Every_setting_read_passes_in_any_case()
    {
        var configuration = Configuration(new()
        {
            ["Signing:key"] = TestKey.Base64,
            ["Signing:Keys:next"] = TestKey.Base64,
            ["Signing:ActiveKeyId"] = "default",
            ["Signing:AccessKeys:ops"] = "0123456789abcdefghijklmnopqrstuvwxyz",
            ["signing:maxrequestbodybytes"] = "1024",
            ["Signing:MaxInFlightBytes"] = "1048576",
            ["Signing:BodyStallTimeout"] = "00:00:05",
            ["Signing:RecyclableMemoryStream:BlockSize"] = "131072",
            ["Signing:RecyclableMemoryStream:LargeBufferMultiple"] = "1048576",
            ["Signing:RecyclableMemoryStream:MaximumBufferSize"] = "8388608",
            ["Signing:RecyclableMemoryStream:MaximumSmallPoolFreeBytes"] = "1",
            ["Signing:RecyclableMemoryStream:MaximumLargePoolFreeBytes"] = "1",
            ["Signing:MetricsExport:ManagedIdentityClientId"] = "x",
            ["Signing:MetricsExport:StorageDirectory"] = "/tmp",
            ["Signing:MetricsExport:DisableOfflineStorage"] = "true",
        });

        Assert.Empty(SigningOptionsValidator.UnreadSettings(configuration));
        Assert.Empty(SigningOptionsValidator.SectionsWhereValuesBelong(configuration));
    }

    [Theory]
    [InlineData("0123456789abcdefghijklmnopqrstuv", true)]
    [InlineData(" 0123456789abcdefghijklmnopqrstuv\n", true)]
    [InlineData("0123456789abcdefghijklmnopqrstu", false)]
    [InlineData(" 0123456789abcdefghijklmnopqrstu", false)]
    public void Access_key_of_32_characters_passes_and_of_31_fails_after_trimming(string key, bool valid)
    {
        var options = WithKey();
        options.AccessKeys["ops"] = key;

        AssertOnly(
            options,
            valid,
            "Signing:AccessKeys:ops (environment variable Signing__AccessKeys__ops) is too short: " +
            "an access key must be at least 32 characters, for example the output of 'openssl rand -base64 32'.");
    }

    [Fact]
    public void Access_key_failures_come_in_ordinal_order_of_name_whatever_the_configured_order()
    {
        var options = WithKey();
        options.AccessKeys["b"] = "short";
        options.AccessKeys["a"] = "short";

        var failures = Failures(options);

        Assert.Equal(2, failures.Count);
        Assert.StartsWith("Signing:AccessKeys:a ", failures[0], StringComparison.Ordinal);
        Assert.StartsWith("Signing:AccessKeys:b ", failures[1], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(nameof(RecyclableMemoryStreamManager.Options.MaximumSmallPoolFreeBytes), 0L, true)]
    [InlineData(nameof(RecyclableMemoryStreamManager.Options.MaximumSmallPoolFreeBytes), 1L, false)]
    [InlineData(nameof(RecyclableMemoryStreamManager.Options.MaximumLargePoolFreeBytes), 0L, true)]
    [InlineData(nameof(RecyclableMemoryStreamManager.Options.MaximumLargePoolFreeBytes), 1L, false)]
    public void Free_pool_bound_is_at_most_the_memory_the_process_may_use(string setting, long overAvailable, bool valid)
    {
        // The validator offers no seam for the memory figure: it reads the runtime's, as this test does. The figure is
        // the machine's or the container's and does not change while the process runs.
        var available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        var options = WithKey();
        if (setting == nameof(RecyclableMemoryStreamManager.Options.MaximumSmallPoolFreeBytes))
        {
            options.RecyclableMemoryStream.MaximumSmallPoolFreeBytes = available + overAvailable;
        }
        else
        {
            options.RecyclableMemoryStream.MaximumLargePoolFreeBytes = available + overAvailable;
        }

        AssertOnly(
            options,
            valid,
            $"Signing:RecyclableMemoryStream:{setting} must be at most the {available / (1024 * 1024)} MiB the process may use.");
    }

    [Fact]
    public void Every_failure_is_reported_at_once()
    {
        var options = new SigningOptions
        {
            Keys = { ["a"] = ThirtyOneByteKey, ["b"] = TestKey.Base64 },
            MaxRequestBodyBytes = 1,
            MaxInFlightBytes = 1,
            BodyStallTimeout = TimeSpan.Zero,
        };

        Assert.Equal(5, Failures(options).Count);
    }

    private static SigningOptions WithKey(string key = TestKey.Base64) => new() { Key = key };

    private static IConfiguration Configuration(Dictionary<string, string?> settings) =>
        new ConfigurationBuilder().AddInMemoryCollection(settings).Build();

    private static SigningOptionsValidator Validator(string environment = SigningServerFactory.TestingEnvironment, IConfiguration? configuration = null) =>
        new(new TestHostEnvironment(environment), configuration ?? Configuration([]));

    private static List<string> Failures(SigningOptions options, string environment = SigningServerFactory.TestingEnvironment, IConfiguration? configuration = null)
    {
        var result = Validator(environment, configuration).Validate(null, options);
        Assert.Equal(result.Failures is null, result.Succeeded);
        return [.. result.Failures ?? []];
    }

    private static void AssertOnly(SigningOptions options, bool valid, string failure)
    {
        if (valid)
        {
            Assert.Empty(Failures(options));
        }
        else
        {
            Assert.Equal([failure], Failures(options));
        }
    }
}
