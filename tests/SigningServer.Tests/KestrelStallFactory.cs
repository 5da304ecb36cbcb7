using System.Net;

namespace SigningServer.Tests;

/// <summary>
/// SigningServer on real Kestrel at a loopback port, with the body stall timeout at its shortest (1 s), so that tests of
/// silent and slow senders run in seconds over a real socket.
/// </summary>
public sealed class KestrelStallFactory : SigningServerFactory
{
    /// <summary>How long a body may go silent here.</summary>
    public static readonly TimeSpan StallTimeout = TimeSpan.FromSeconds(1);

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public KestrelStallFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:BodyStallTimeout"] = "00:00:01",
        })
    {
        // An explicit endpoint, for the reason KestrelSigningServerFactory gives.
        UseKestrel(options => options.Listen(IPAddress.Loopback, 0));
    }
}
