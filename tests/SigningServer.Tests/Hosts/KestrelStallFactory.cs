namespace SigningServer.Tests.Hosts;

/// <summary>
/// SigningServer on real Kestrel at a loopback port, with a short body stall timeout (2 s), so that tests of silent and
/// slow senders run in seconds over a real socket, with room for a busy test machine to be late on a slow sender's beat;
/// its log is kept, as <see cref="HostileKestrelFactory"/> keeps it, so that a stall is seen to log no fault.
/// </summary>
public sealed class KestrelStallFactory : HostileKestrelFactory
{
    /// <summary>How long a body may go silent here.</summary>
    public static readonly TimeSpan StallTimeout = TimeSpan.FromSeconds(2);

    /// <summary>Creates the factory; the server starts on first use.</summary>
    public KestrelStallFactory()
        : base(new Dictionary<string, string?>
        {
            ["Signing:BodyStallTimeout"] = "00:00:02",

            // The stall tests trickle blocks that inflate 400 times, which the ratio would refuse before the stall.
            ["Signing:MaxDecompressionRatio"] = "1000000",
        })
    {
    }
}
