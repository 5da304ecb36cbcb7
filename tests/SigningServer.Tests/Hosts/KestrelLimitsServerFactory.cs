using System.Net;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer on real Kestrel with a 1 MiB body limit: room for a body that arrives slower than the service allows
/// yet faster than Kestrel's default minimum rate, so that only the service's own limit can stop it.
/// </summary>
public sealed class KestrelLimitsServerFactory : SigningServerFactory
{
    /// <summary>The body limit this host is configured with.</summary>
    public const int Limit = 1024 * 1024;

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public KestrelLimitsServerFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = Limit.ToString(System.Globalization.CultureInfo.InvariantCulture),
        })
    {
        // An explicit loopback endpoint, for the reason KestrelSigningServerFactory gives.
        UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
    }
}
