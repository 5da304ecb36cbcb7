using System.Globalization;
using System.Net;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer on real Kestrel with a 1 MiB body limit and a 4 MiB in-flight budget: <c>string</c>'s own limit, what
/// its charge lets it take, is then below the service's, which is Kestrel's, so a body between the two is one Kestrel
/// would read to its end after the service has refused it.
/// </summary>
public sealed class KestrelSmallBudgetFactory : SigningServerFactory
{
    /// <summary>The body limit this host is configured with.</summary>
    public const int Limit = 1024 * 1024;

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public KestrelSmallBudgetFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = Limit.ToString(CultureInfo.InvariantCulture),
            ["Signing:MaxInFlightBytes"] = (4 * Limit).ToString(CultureInfo.InvariantCulture),
        })
    {
        // An explicit loopback endpoint, for the reason KestrelSigningServerFactory gives.
        UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
    }
}
