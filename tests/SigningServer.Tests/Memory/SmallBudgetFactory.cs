using System.Globalization;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Memory;

/// <summary>
/// The usual test host with a 256 KiB body limit and a 4 MiB in-flight budget, so that a couple of requests held in
/// flight fill it and the next ones are refused.
/// </summary>
public sealed class SmallBudgetFactory : SigningServerFactory
{
    /// <summary>The body limit.</summary>
    public const int BodyLimit = 256 * 1024;

    /// <summary>The in-flight budget.</summary>
    public const long BudgetBytes = 4L * 1024 * 1024;

    /// <summary>Creates the factory; the host starts on first use.</summary>
    public SmallBudgetFactory()
        : base(TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            ["Signing:MaxRequestBodyBytes"] = BodyLimit.ToString(CultureInfo.InvariantCulture),
            ["Signing:MaxInFlightBytes"] = BudgetBytes.ToString(CultureInfo.InvariantCulture),
        })
    {
    }
}
