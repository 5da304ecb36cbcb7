namespace SigningServer.Tests.Hosts;

/// <summary>The usual test host with <c>Signing:MaxRequestBodyBytes</c> at 4 KiB, so limit tests need only small bodies.</summary>
public sealed class SmallBodyLimitFactory : SigningServerFactory
{
    /// <summary>The body limit this host is configured with.</summary>
    public const int Limit = 4096;

    /// <summary>Creates the factory; the host starts on first use.</summary>
    public SmallBodyLimitFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = Limit.ToString(System.Globalization.CultureInfo.InvariantCulture),
        })
    {
    }
}
