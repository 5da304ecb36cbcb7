using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Keys;

/// <summary>The usual test host with two access keys configured, and its log kept.</summary>
internal static class AccessKeyServerFactory
{
    // python3 -c "import secrets; print(secrets.token_urlsafe(32))", twice.
    public const string FirstKey = "3OOBvbVKWLnacPSw12ftKnMPtMsLijT_9wFcspuwqU4";
    public const string SecondKey = "BUTWOEi4K-1UtFunc-CIAjLDo-dJplt2OkeoSoqt4TE";

    /// <summary>A host in <paramref name="environment"/> with the test signing key and <paramref name="accessKeys"/> by name.</summary>
    public static ConfiguredServerFactory Create(string environment, params (string Name, string Key)[] accessKeys)
    {
        var settings = new Dictionary<string, string?> { ["Signing:Key"] = TestKey.Base64 };
        foreach (var (name, key) in accessKeys)
        {
            settings["Signing:AccessKeys:" + name] = key;
        }

        return new ConfiguredServerFactory(environment, settings);
    }

    /// <summary>A host in the testing environment with <see cref="FirstKey"/> and <see cref="SecondKey"/>.</summary>
    public static ConfiguredServerFactory WithTwoKeys() =>
        Create(SigningServerFactory.TestingEnvironment, ("first", FirstKey), ("second", SecondKey));
}
