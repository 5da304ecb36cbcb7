using Microsoft.Extensions.Configuration;
using Microsoft.IO;
using Signing.Http.Keys;
using Signing.Http.Memory;

namespace Signing.Http;

/// <summary>
/// Everything the service reads from configuration section <c>Signing</c> (environment variables
/// <c>Signing__Key</c>, <c>Signing__Keys__&lt;id&gt;</c>, <c>Signing__ActiveKeyId</c>, <c>Signing__AccessKeys__&lt;name&gt;</c>,
/// <c>Signing__MaxRequestBodyBytes</c>, <c>Signing__MaxInFlightBytes</c>, <c>Signing__BodyStallTimeout</c>,
/// <c>Signing__MaxConcurrentRequestsPerClient</c>,
/// <c>Signing__RecyclableMemoryStream__…</c>). Checked at start-up by <see cref="SigningOptionsValidator"/>.
/// </summary>
public sealed class SigningOptions
{
    /// <summary>The configuration section these options are bound from.</summary>
    public const string SectionName = "Signing";

    /// <summary>
    /// The single-key form: one HMAC key, base64, at least 32 bytes decoded, whose id is
    /// <see cref="SigningKeyRing.DefaultKeyId"/>. Kept so that a deployment with one key needs one setting. Never logged
    /// and never returned.
    /// </summary>
    public string? Key { get; set; }

    /// <summary>
    /// Further keys by id (<c>Signing:Keys:&lt;id&gt;</c>), each base64 of at least 32 bytes, so that a new key can be
    /// added for verification before it signs and an old one kept for verification after it stops: rotation with no
    /// failed verifications. Never logged and never returned; only the ids are.
    /// </summary>
    public Dictionary<string, string?> Keys { get; set; } = new(StringComparer.Ordinal);

    /// <summary>
    /// SigningServer's access keys by name (<c>Signing:AccessKeys:&lt;name&gt;</c>), secrets from configuration as the
    /// signing keys are: when at least one is set, sign, verify and stats require one of them, as the Functions host's
    /// function keys do (<see cref="Access.AccessKeys"/>). Names only tell keys apart in configuration, so that one can
    /// be replaced while the other still works; neither keys nor names are logged or returned. Each at least
    /// <see cref="Access.AccessKeys.MinimumLength"/> characters. The Functions app does not enforce them (its host checks
    /// function keys), but validates them at start-up like every setting.
    /// </summary>
    public Dictionary<string, string?> AccessKeys { get; set; } = new(StringComparer.Ordinal);

    /// <summary>
    /// The id of the key that signs. Required when more than one key is configured; with exactly one it may be left out,
    /// and that key signs.
    /// </summary>
    public string? ActiveKeyId { get; set; }

    /// <summary>
    /// The largest body accepted; larger ones get 413 before they are read to the end. 32 MiB is about 29 times the
    /// write-up's 3,000-widget envelope. SigningServer sets Kestrel's own limit to this value, because Kestrel's default
    /// (30,000,000 bytes) is lower; the Functions worker lifts Kestrel's limit and the endpoint enforces this one, so that
    /// the host's forwarder passes the 413 on (<see cref="SigningKestrelLimits.ApplyBehindFunctionsHost"/>).
    /// </summary>
    public long MaxRequestBodyBytes { get; set; } = 32 * 1024 * 1024;

    /// <summary>The smallest <see cref="MaxRequestBodyBytes"/> accepted: 1 KiB, below which no envelope of one widget fits.</summary>
    public const long MinMaxRequestBodyBytes = 1024;

    /// <summary>
    /// The largest <see cref="MaxRequestBodyBytes"/> accepted: 2 GiB, the most a stream position and Kestrel's
    /// per-request accounting handle as one body, far past what one signing request should ever be.
    /// </summary>
    public const long MaxMaxRequestBodyBytes = int.MaxValue;

    /// <summary>
    /// <see cref="MaxRequestBodyBytes"/> as configured, for Kestrel's options, which are made while the host is built,
    /// before <see cref="SigningHostExtensions.RunSigning"/> checks the settings: there a value Kestrel refuses (a
    /// negative one) would be an unhandled exception and a crash dump instead of one line. So a value that does not
    /// parse, or lies outside <see cref="MinMaxRequestBodyBytes"/> to <see cref="MaxMaxRequestBodyBytes"/>, gives the
    /// default here, and the validator reports it, naming the setting, before anything runs. Read as the configuration
    /// binder reads it (which takes <c>0x4000000</c> too), so that Kestrel and the endpoint never hold different limits.
    /// </summary>
    internal static long ReadMaxRequestBodyBytes(IConfiguration configuration)
    {
        long? configured;
        try
        {
            configured = configuration.GetValue<long?>(SectionName + ":" + nameof(MaxRequestBodyBytes));
        }
        catch (InvalidOperationException)
        {
            // Not a number: the validator names the setting.
            configured = null;
        }

        return configured is >= MinMaxRequestBodyBytes and <= MaxMaxRequestBodyBytes ? configured.Value : new SigningOptions().MaxRequestBodyBytes;
    }

    /// <summary>
    /// The most memory requests in flight may hold together (<see cref="InFlightBudget"/>); a request that does not fit
    /// is refused with 503 and <c>Retry-After</c>. Unset, it is derived from the memory the runtime may use
    /// (<see cref="InFlightBudgetSizing.DefaultLimitBytes"/>). A strategy whose charge for a maximum-size body does not
    /// fit gets a smaller body limit of its own (<see cref="StrategyBodyLimits"/>); only a budget in which no strategy
    /// can take a body stops the service from starting.
    /// </summary>
    public long? MaxInFlightBytes { get; set; }

    /// <summary>The smallest <see cref="MaxInFlightBytes"/> accepted: 1 MiB.</summary>
    public const long MinMaxInFlightBytes = 1024 * 1024;

    /// <summary>
    /// The largest <see cref="MaxInFlightBytes"/> accepted: as many of <see cref="InFlightBudget.BytesPerPermit"/> as
    /// the budget counts (<see cref="int.MaxValue"/> permits, about 2 TiB); a larger value would overflow its count when
    /// the budget is made.
    /// </summary>
    public const long MaxMaxInFlightBytes = (long)int.MaxValue * InFlightBudget.BytesPerPermit;

    /// <summary>
    /// How long a body may stop arriving (bring less than 16 KiB, <see cref="Requests.BodyStallClock.ProgressBytes"/>)
    /// before the request is cut off with 408 and its blocks go back to the pool. Kestrel's minimum data rate is an
    /// average since the body began, so a client that sends 16 MiB at once and then nothing, or a byte now and then,
    /// would keep its buffer for minutes; this bounds the silence itself. 5 s by default, at most 10 s. While the
    /// in-flight budget is full, a quarter of it (at most a second) is enough (<see cref="Requests.SlowBodies"/>).
    /// </summary>
    public TimeSpan BodyStallTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// The most a compressed body may decompress to, as a multiple of its bytes on the wire (past its first 64 KiB,
    /// <see cref="Requests.DecompressionRatio.Allowance"/>); one that goes further is a 413 at once. The body limit alone
    /// lets 32 KB of gzip inflate to 32 MiB of spaces, which every strategy inflates in full and a buffering one holds
    /// (a charge of 32 MiB and more against the in-flight budget), for the price of a few packets. A widget envelope
    /// compresses about 2.3 times (gzip's best, 3,000 widgets); the same widget repeated 3,000 times, 215 times, so a
    /// test client that sends such bodies compressed needs more: 100 by default, from 2 to 1,000,000.
    /// </summary>
    public int MaxDecompressionRatio { get; set; } = 100;

    /// <summary>The largest <see cref="MaxDecompressionRatio"/> accepted: far past deflate's most (1,032), in effect no bound.</summary>
    public const int MaxMaxDecompressionRatio = 1_000_000;

    /// <summary>
    /// SigningServer's limit per client address: the most requests one address may have in flight at once (an IPv6
    /// address counted by its /64, which one client usually holds whole); one more is answered 429 with
    /// <c>Retry-After</c> at once, before its body is read (<see cref="Access.ClientLimits"/>). Without it, a thousand
    /// connections from one address, each sending a megabyte and then nothing, keep the in-flight budget full, and an
    /// honest client gets 503 nine times in ten. Unset, there is no limit: behind a proxy or load balancer every client
    /// has the proxy's address, so set it where SigningServer faces clients itself, or behind a proxy that forwards the
    /// client's address with ASP.NET Core's forwarded headers on (<c>ASPNETCORE_FORWARDEDHEADERS_ENABLED</c>). The
    /// Functions app checks the value and does not apply it: its only client is the Functions host, and the platform
    /// limits concurrency per instance.
    /// </summary>
    public int? MaxConcurrentRequestsPerClient { get; set; }

    /// <summary>The largest <see cref="MaxConcurrentRequestsPerClient"/> accepted: more than one server serves at once.</summary>
    public const int MaxMaxConcurrentRequestsPerClient = 10_000;

    /// <summary>
    /// The one pool every buffer comes from (request bodies and the recyclable strategies' documents): the library's
    /// own options, bound from <c>Signing:RecyclableMemoryStream:BlockSize</c> and its siblings, with the defaults and
    /// reasons of <see cref="StreamPoolSettings.DefaultOptions"/>. <c>MaximumStreamCapacity</c> is not a setting: it
    /// follows <see cref="MaxRequestBodyBytes"/> (<see cref="StreamPoolSettings.MaximumStreamCapacity"/>).
    /// </summary>
    public RecyclableMemoryStreamManager.Options RecyclableMemoryStream { get; set; } = StreamPoolSettings.DefaultOptions();

    /// <summary>
    /// Every key configured in either form, with the setting it came from so that a problem can name it: the
    /// single-key <see cref="Key"/> first (also when it is missing and no other key is set, so that the usual
    /// "is missing" message names it), then <see cref="Keys"/> in ordinal order of id.
    /// </summary>
    internal IReadOnlyList<ConfiguredKey> ConfiguredKeys()
    {
        var keys = new List<ConfiguredKey>(Keys.Count + 1);
        if (!string.IsNullOrWhiteSpace(Key) || Keys.Count == 0)
        {
            keys.Add(new ConfiguredKey(SigningKeyRing.DefaultKeyId, SectionName + ":Key", SectionName + "__Key", Key));
        }

        foreach (var (id, value) in Keys.OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            keys.Add(new ConfiguredKey(id, $"{SectionName}:Keys:{id}", $"{SectionName}__Keys__{id}", value));
        }

        return keys;
    }
}
