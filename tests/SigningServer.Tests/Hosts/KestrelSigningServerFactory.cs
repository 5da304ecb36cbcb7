using System.Net;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer on real Kestrel at a loopback port the OS picks, with a 4 KiB body limit. TestServer enforces no
/// Kestrel limits, so only this host shows that <c>AddSigning()</c> set Kestrel's own limit.
/// </summary>
public sealed class KestrelSigningServerFactory : SigningServerFactory
{
    /// <summary>The body limit this host is configured with.</summary>
    public const int Limit = 4096;

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public KestrelSigningServerFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = Limit.ToString(System.Globalization.CultureInfo.InvariantCulture),
        })
    {
        // Not UseKestrel(0): with a top-level Program the app starts its host on its own thread, and UseKestrel(port)
        // rewrites the server's addresses from the test thread, racing that start ("Addresses cannot be modified
        // after the server has started"; when the app wins, it listens on Program's default 7071). An explicit
        // endpoint is part of Kestrel's options, so it is in place before the app builds.
        UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
    }
}
