using System.Net;
using System.Net.Http.Json;
using System.Security.Cryptography;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Signing.Http;
using Signing.Http.Keys;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Keys;

/// <summary>
/// Several keys by id: the active one signs and is reported, every configured one verifies, so a rotation (add the new
/// key, make it active, retire the old one) never fails a verification; and every key obeys the start-up rules.
/// </summary>
public sealed class KeyRotationTests
{
    // Bytes 100 to 131, a key other than TestKey: python3 -c "import base64; print(base64.b64encode(bytes(range(100,132))).decode())"
    private const string OtherKeyBase64 = "ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM=";

    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(100,132)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignatureUnderOtherKey = "f1ccd23eeafaa03f7215af451c861b7da5b6d95265cddcf12d58500ab2342d87";

    // python3 -c "import base64; print(base64.b64encode(bytes(range(31))).decode())"
    private const string ThirtyOneByteKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==";

    private static readonly byte[] EmptyEnvelope = Bodies.Utf8("{\"widgets\":[]}");

    [Fact]
    public async Task Single_key_form_signs_as_the_default_key_id()
    {
        using var factory = new SigningServerFactory();
        using var client = factory.CreateClient();

        var signed = await VerifyRequests.SignAsync(client, EmptyEnvelope);

        Assert.Equal(SigningKeyRing.DefaultKeyId, signed.KeyId);
        Assert.Equal("default", signed.KeyId);
    }

    [Fact]
    public async Task Active_key_signs_and_its_id_is_reported()
    {
        using var factory = Host(("old", TestKey.Base64), ("new", OtherKeyBase64), active: "new");
        using var client = factory.CreateClient();

        var signed = await VerifyRequests.SignAsync(client, EmptyEnvelope);

        Assert.Equal("new", signed.KeyId);
        Assert.Equal(EmptyEnvelopeSignatureUnderOtherKey, signed.Signature);
    }

    [Fact]
    public async Task Signatures_of_the_old_and_the_new_key_both_verify_during_a_rotation_naming_their_key()
    {
        using var factory = Host(("old", TestKey.Base64), ("new", OtherKeyBase64), active: "new");
        using var client = factory.CreateClient();

        Assert.Equal("old", await VerifiedKeyAsync(client, TestKey.SignatureOf(EmptyEnvelope)));
        Assert.Equal("new", await VerifiedKeyAsync(client, EmptyEnvelopeSignatureUnderOtherKey));
    }

    [Fact]
    public async Task Every_step_of_a_rotation_verifies_what_the_step_before_signed()
    {
        // 1: only the old key. 2: the new key added, the old one still active. 3: the new key active. 4: the old one retired.
        string[] signatures = new string[4];
        using (var step1 = new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?> { ["Signing:Key"] = TestKey.Base64 }))
        {
            signatures[0] = await SignThenVerifyAsync(step1, null);
        }

        using (var step2 = new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:Keys:next"] = OtherKeyBase64,
            ["Signing:ActiveKeyId"] = SigningKeyRing.DefaultKeyId,
        }))
        {
            signatures[1] = await SignThenVerifyAsync(step2, signatures[0]);
        }

        using (var step3 = new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:Keys:next"] = OtherKeyBase64,
            ["Signing:ActiveKeyId"] = "next",
        }))
        {
            signatures[2] = await SignThenVerifyAsync(step3, signatures[1]);
        }

        using var step4 = Host(("next", OtherKeyBase64));
        signatures[3] = await SignThenVerifyAsync(step4, signatures[2]);

        Assert.Equal(TestKey.SignatureOf(EmptyEnvelope), signatures[1]);
        Assert.Equal(EmptyEnvelopeSignatureUnderOtherKey, signatures[2]);

        // After the retirement the old key's signatures no longer verify.
        using var client = step4.CreateClient();
        using var retired = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", VerifyRequests.Header(signatures[0]));
        await ProblemResponse.AssertAsync(retired, HttpStatusCode.Unauthorized);
    }

    [Fact]
    public async Task The_Azure_template_s_rotation_verifies_at_every_step_what_the_step_before_signed()
    {
        // The settings infra/resources.bicep writes (docs/deploy.md, "Rotating it"): Signing__Key is always the current
        // key and Signing__ActiveKeyId always named; during a rotation the key before is Signing__Keys__previous.
        // 0: one key, before the rotation. 1: the new key current, the old one previous and still signing. 2: the new
        // key signs. 3: the previous key gone.
        var steps = new (Dictionary<string, string?> Settings, string SignsAs, string Signature)[]
        {
            (new() { ["Signing:Key"] = TestKey.Base64, ["Signing:ActiveKeyId"] = "default" }, "default", TestKey.SignatureOf(EmptyEnvelope)),
            (new() { ["Signing:Key"] = OtherKeyBase64, ["Signing:Keys:previous"] = TestKey.Base64, ["Signing:ActiveKeyId"] = "previous" }, "previous", TestKey.SignatureOf(EmptyEnvelope)),
            (new() { ["Signing:Key"] = OtherKeyBase64, ["Signing:Keys:previous"] = TestKey.Base64, ["Signing:ActiveKeyId"] = "default" }, "default", EmptyEnvelopeSignatureUnderOtherKey),
            (new() { ["Signing:Key"] = OtherKeyBase64, ["Signing:ActiveKeyId"] = "default" }, "default", EmptyEnvelopeSignatureUnderOtherKey),
        };
        string? before = null;
        foreach (var (settings, signsAs, signature) in steps)
        {
            using var factory = new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, settings);
            using var client = factory.CreateClient();
            if (before is not null)
            {
                using var verified = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", VerifyRequests.Header(before));
                Assert.Equal(HttpStatusCode.OK, verified.StatusCode);
            }

            var signed = await VerifyRequests.SignAsync(client, EmptyEnvelope);
            Assert.Equal((signsAs, signature), (signed.KeyId, signed.Signature));
            before = signed.Signature;
        }

        // A previous key named active when there is none stops the app, naming the setting.
        Assert.Contains(
            "Signing:ActiveKeyId names no configured key",
            ValidationMessage(new() { ["Signing:Key"] = OtherKeyBase64, ["Signing:ActiveKeyId"] = "previous" }),
            StringComparison.Ordinal);
    }

    [Fact]
    public async Task One_key_under_keys_signs_without_an_active_key_id()
    {
        using var factory = Host(("only", OtherKeyBase64));
        using var client = factory.CreateClient();

        var signed = await VerifyRequests.SignAsync(client, EmptyEnvelope);

        Assert.Equal("only", signed.KeyId);
    }

    [Fact]
    public void Several_keys_without_an_active_key_id_fail_naming_the_setting()
    {
        var message = ValidationMessage(new() { ["Signing:Keys:a"] = TestKey.Base64, ["Signing:Keys:b"] = OtherKeyBase64 });

        Assert.Contains("Signing:ActiveKeyId", message, StringComparison.Ordinal);
        Assert.Contains("a, b", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Active_key_id_that_names_no_key_fails_naming_the_setting()
    {
        var message = ValidationMessage(new() { ["Signing:Keys:a"] = TestKey.Base64, ["Signing:ActiveKeyId"] = "c" });

        Assert.Contains("Signing:ActiveKeyId names no configured key", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("not base64 at all, but long enough to be a key!!", "not valid base64")]
    [InlineData(ThirtyOneByteKey, "31 bytes")]
    [InlineData("", "is missing")]
    public void Bad_key_under_keys_fails_naming_its_setting_without_repeating_it(string key, string problem)
    {
        var message = ValidationMessage(new() { ["Signing:Key"] = TestKey.Base64, ["Signing:Keys:next"] = key, ["Signing:ActiveKeyId"] = "default" });

        Assert.Contains("Signing:Keys:next (environment variable Signing__Keys__next) ", message, StringComparison.Ordinal);
        Assert.Contains(problem, message, StringComparison.Ordinal);
        if (key.Length > 0)
        {
            Assert.DoesNotContain(key, message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Development_key_under_keys_is_refused_outside_development_without_repeating_it()
    {
        var message = ValidationMessage(new() { ["Signing:Keys:dev"] = DevelopmentKey.Base64, ["Signing:Keys:real"] = TestKey.Base64, ["Signing:ActiveKeyId"] = "real" });

        Assert.Contains("Signing:Keys:dev is the committed development key", message, StringComparison.Ordinal);
        Assert.DoesNotContain(DevelopmentKey.Base64, message, StringComparison.Ordinal);
    }

    [Fact]
    public void Default_id_under_keys_beside_the_single_key_form_fails()
    {
        var message = ValidationMessage(new() { ["Signing:Key"] = TestKey.Base64, ["Signing:Keys:default"] = OtherKeyBase64, ["Signing:ActiveKeyId"] = "default" });

        Assert.Contains("Signing:Keys:default", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Key_id_that_would_need_escaping_fails()
    {
        var message = ValidationMessage(new() { ["Signing:Keys:a b"] = TestKey.Base64 });

        Assert.Contains("id is not 1 to 64 ASCII letters", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Host_with_a_bad_second_key_does_not_start()
    {
        var (thrown, failure, log) = StartupFailure.Catch(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:Keys:next"] = ThirtyOneByteKey,
            ["Signing:ActiveKeyId"] = "default",
        });

        Assert.Contains("Signing:Keys:next", failure, StringComparison.Ordinal);
        Assert.DoesNotContain(ThirtyOneByteKey, thrown.ToString(), StringComparison.Ordinal);
        Assert.All(log, entry => Assert.DoesNotContain(ThirtyOneByteKey, entry, StringComparison.Ordinal));
    }

    private static ConfiguredServerFactory Host(params (string Id, string Key)[] keys) => Host(keys, null);

    private static ConfiguredServerFactory Host((string Id, string Key) first, (string Id, string Key) second, string active) => Host([first, second], active);

    private static ConfiguredServerFactory Host((string Id, string Key)[] keys, string? active)
    {
        var settings = keys.ToDictionary(k => "Signing:Keys:" + k.Id, k => (string?)k.Key);
        settings["Signing:ActiveKeyId"] = active;
        return new ConfiguredServerFactory(SigningServerFactory.TestingEnvironment, settings);
    }

    private static async Task<string?> VerifiedKeyAsync(HttpClient client, string signature)
    {
        using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", VerifyRequests.Header(signature));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return (await response.Content.ReadFromJsonAsync<VerifyResponse>())!.KeyId;
    }

    // Checks that the signature the previous step made still verifies here, then signs and returns this step's.
    private static async Task<string> SignThenVerifyAsync(SigningServerFactory factory, string? previous)
    {
        using var client = factory.CreateClient();
        if (previous is not null)
        {
            using var response = await VerifyRequests.VerifyAsync(client, EmptyEnvelope, "", VerifyRequests.Header(previous));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        var signed = await VerifyRequests.SignAsync(client, EmptyEnvelope);
        Assert.Equal(Convert.ToHexStringLower(HMACSHA256.HashData(Convert.FromBase64String(signed.KeyId == "next" ? OtherKeyBase64 : TestKey.Base64), EmptyEnvelope)), signed.Signature);
        return signed.Signature;
    }

    // The options validation failure for these settings, in an environment other than Development, without a host.
    private static string ValidationMessage(Dictionary<string, string?> settings)
    {
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(new ConfigurationBuilder().AddInMemoryCollection(settings).Build());
        services.AddSingleton<IHostEnvironment>(new TestHostEnvironment(SigningServerFactory.TestingEnvironment));
        services.AddSigning();
        using var provider = services.BuildServiceProvider();

        var exception = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<IOptions<SigningOptions>>().Value);
        Assert.All(settings.Values.OfType<string>().Where(v => v.Length >= 32), value => Assert.DoesNotContain(value, exception.Message, StringComparison.Ordinal));
        return exception.Message;
    }
}
