using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using Signing.Http.Access;
using Signing.Http.Keys;
using Signing.Http.Memory;
using Signing.Http.Telemetry;

namespace Signing.Http;

/// <summary>
/// Refuses to start with options that would fail later or sign unsafely. Messages name the setting and never
/// repeat the key.
/// </summary>
public sealed class SigningOptionsValidator(IHostEnvironment environment, IConfiguration configuration) : IValidateOptions<SigningOptions>
{
    // The metrics export's section, and the settings in it this app reads.
    private const string MetricsExportSection = SigningOptions.SectionName + ":MetricsExport";

    private static readonly string[] MetricsExportSettings =
    [
        MetricsExportOptions.ManagedIdentityClientIdSetting, MetricsExportOptions.StorageDirectorySetting, MetricsExportOptions.DisableOfflineStorageSetting,
    ];

    /// <inheritdoc/>
    public ValidateOptionsResult Validate(string? name, SigningOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        var keys = options.ConfiguredKeys();
        foreach (var key in keys)
        {
            ValidateKey(key, failures);
        }

        if (keys.Count(k => k.Id == SigningKeyRing.DefaultKeyId) > 1)
        {
            failures.Add($"{SigningOptions.SectionName}:Keys:{SigningKeyRing.DefaultKeyId} has the id that {SigningOptions.SectionName}:Key already has; give it another id.");
        }

        ValidateActiveKeyId(options.ActiveKeyId, keys, failures);
        ValidateAccessKeys(options.AccessKeys, failures);
        failures.AddRange(SectionsWhereValuesBelong(configuration));
        failures.AddRange(UnreadSettings(configuration));

        if (options.MaxRequestBodyBytes is < SigningOptions.MinMaxRequestBodyBytes or > SigningOptions.MaxMaxRequestBodyBytes)
        {
            failures.Add($"{SigningOptions.SectionName}:MaxRequestBodyBytes must be from {SigningOptions.MinMaxRequestBodyBytes} to {SigningOptions.MaxMaxRequestBodyBytes} bytes (1 KiB to a byte under 2 GiB).");
        }

        if (options.MaxInFlightBytes is < SigningOptions.MinMaxInFlightBytes or > SigningOptions.MaxMaxInFlightBytes)
        {
            failures.Add($"{SigningOptions.SectionName}:MaxInFlightBytes must be from {SigningOptions.MinMaxInFlightBytes} to {SigningOptions.MaxMaxInFlightBytes} bytes (1 MiB to {InFlightBudget.BytesPerPermit / 1024} KiB under 2 TiB), or unset to derive it from the memory available.");
        }

        if (options.MaxConcurrentRequestsPerClient is < 1 or > SigningOptions.MaxMaxConcurrentRequestsPerClient)
        {
            failures.Add($"{SigningOptions.SectionName}:MaxConcurrentRequestsPerClient must be from 1 to {SigningOptions.MaxMaxConcurrentRequestsPerClient} requests, or unset for no limit per client address.");
        }

        if (options.MaxDecompressionRatio is < 2 or > SigningOptions.MaxMaxDecompressionRatio)
        {
            failures.Add($"{SigningOptions.SectionName}:MaxDecompressionRatio must be from 2 to {SigningOptions.MaxMaxDecompressionRatio}.");
        }

        if (options.BodyStallTimeout < TimeSpan.FromSeconds(1) || options.BodyStallTimeout > TimeSpan.FromSeconds(10))
        {
            failures.Add($"{SigningOptions.SectionName}:BodyStallTimeout must be between 00:00:01 and 00:00:10.");
        }

        failures.AddRange(StreamPoolSettings.Validate(options.RecyclableMemoryStream));
        ValidateFreePoolBounds(options.RecyclableMemoryStream, GC.GetGCMemoryInfo().TotalAvailableMemoryBytes, failures);
        if (configuration[StreamPoolSettings.SectionName + ":" + nameof(options.RecyclableMemoryStream.MaximumStreamCapacity)] is not null)
        {
            failures.Add($"{StreamPoolSettings.SectionName}:MaximumStreamCapacity is not a setting: it follows {SigningOptions.SectionName}:MaxRequestBodyBytes. Remove it.");
        }

        // The settings of the home-made pool that RecyclableMemoryStream replaced would otherwise do nothing, silently.
        if (configuration.GetSection(SigningOptions.SectionName + ":Buffers").Exists())
        {
            failures.Add($"{SigningOptions.SectionName}:Buffers is no longer read: buffers come from RecyclableMemoryStream, configured under {StreamPoolSettings.SectionName} (BlockSize, MaximumSmallPoolFreeBytes, …). Remove it.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private void ValidateAccessKeys(Dictionary<string, string?> accessKeys, List<string> failures)
    {
        const string Setting = SigningOptions.SectionName + ":AccessKeys";

        // A value on the section itself binds to no key at all, and the endpoints would stay open in silence.
        if (!string.IsNullOrEmpty(configuration[Setting]))
        {
            failures.Add($"{Setting} takes keys by name: set {Setting}:<name> (environment variable Signing__AccessKeys__<name>), not {Setting} itself.");
        }

        foreach (var (name, key) in accessKeys.OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            if (string.IsNullOrWhiteSpace(key) || key.Trim().Length < AccessKeys.MinimumLength)
            {
                failures.Add($"{Setting}:{name} (environment variable Signing__AccessKeys__{name}) is {(string.IsNullOrWhiteSpace(key) ? "empty" : "too short")}: " +
                    $"an access key must be at least {AccessKeys.MinimumLength} characters, for example the output of 'openssl rand -base64 32'.");
            }
        }
    }

    /// <summary>
    /// The settings under <c>Signing</c> that nothing reads: a misspelt name (<c>Signing:MaxRequestBodyByte</c>) would
    /// otherwise leave the default in force, in silence. What each section reads is its options' settable properties,
    /// and the metrics export's three settings; <c>Signing:Buffers</c> has a message of its own.
    /// </summary>
    internal static IEnumerable<string> UnreadSettings(IConfiguration configuration)
    {
        var sections = new (string Section, IEnumerable<string> Read)[]
        {
            // Stryker disable once Linq : the names make a set, so where in the list one is added makes no difference.
            (SigningOptions.SectionName, SettableProperties(typeof(SigningOptions)).Append("MetricsExport").Append("Buffers")),
            (StreamPoolSettings.SectionName, SettableProperties(typeof(RecyclableMemoryStreamManager.Options))),
            (MetricsExportSection, MetricsExportSettings.Select(setting => setting[(setting.LastIndexOf(':') + 1)..])),
        };
        foreach (var (section, read) in sections)
        {
            var names = read.ToHashSet(StringComparer.OrdinalIgnoreCase);
            foreach (var unread in configuration.GetSection(section).GetChildren().Where(child => !names.Contains(child.Key)))
            {
                yield return $"{unread.Path} is not a setting this app reads (misspelt?): rename or remove it.";
            }
        }

        static IEnumerable<string> SettableProperties(Type options) =>
            options.GetProperties(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance).Where(p => p.CanWrite).Select(p => p.Name);
    }

    /// <summary>
    /// The settings that are values but were given settings under them (<c>Signing:BodyStallTimeout:x</c>, an entry of
    /// <c>Signing:Keys</c> or <c>Signing:AccessKeys</c> nested a level too deep: <c>Signing:AccessKeys:ops:key</c>), and the
    /// sections that were given a value (<c>Signing:RecyclableMemoryStream=5</c>). Such a setting is ignored in silence
    /// (an access key missed leaves the endpoints open), or, with no value beside it, fails in the configuration binder
    /// with a message that names no setting; so the host asks for these too when binding fails.
    /// </summary>
    internal static IEnumerable<string> SectionsWhereValuesBelong(IConfiguration configuration)
    {
        var signing = configuration.GetSection(SigningOptions.SectionName);
        var pool = configuration.GetSection(StreamPoolSettings.SectionName);
        var values = ValueSettings(typeof(SigningOptions)).Select(signing.GetSection)
            .Concat(ValueSettings(typeof(RecyclableMemoryStreamManager.Options)).Select(pool.GetSection))
            .Concat(MetricsExportSettings.Select(configuration.GetSection))
            .Concat(signing.GetSection(nameof(SigningOptions.Keys)).GetChildren())
            .Concat(signing.GetSection(nameof(SigningOptions.AccessKeys)).GetChildren());
        var valuesWithSettings = values
            .Where(value => value.GetChildren().Any())
            .Select(value => $"{value.Path} has settings under it; it is a value: set {value.Path} (environment variable {value.Path.Replace(":", "__", StringComparison.Ordinal)}) itself.");

        // Signing:AccessKeys given a value has its own message (ValidateAccessKeys).
        var sectionsWithValues = new[] { signing, signing.GetSection(nameof(SigningOptions.Keys)), pool, configuration.GetSection(MetricsExportSection) }
            .Where(section => section.Value is not null)
            .Select(section => $"{section.Path} takes settings under it, not a value: set {section.Path}:<setting> (environment variable {section.Path.Replace(":", "__", StringComparison.Ordinal)}__<setting>), not {section.Path} itself.");
        return valuesWithSettings.Concat(sectionsWithValues);

        // The settable properties that hold one value (numbers, flags, spans of time, strings), not a section.
        static IEnumerable<string> ValueSettings(Type options) =>
            options.GetProperties(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance)
                .Where(p => p.CanWrite && (p.PropertyType.IsValueType || p.PropertyType == typeof(string)))
                .Select(p => p.Name);
    }

    // A free pool allowed to keep more than the process may hold is no bound at all: a typo of a few digits would turn
    // the leak check off in silence. The library itself takes any positive value. The defaults are no typo: in a process
    // with less memory than them they bound nothing, and were refused naming a setting nobody set, before the line that
    // says what to do about so little memory (Signing:MaxInFlightBytes).
    private static void ValidateFreePoolBounds(RecyclableMemoryStreamManager.Options pool, long availableBytes, List<string> failures)
    {
        var defaults = StreamPoolSettings.DefaultOptions();
        (string Setting, long Value, long Default)[] bounds =
        [
            (nameof(pool.MaximumSmallPoolFreeBytes), pool.MaximumSmallPoolFreeBytes, defaults.MaximumSmallPoolFreeBytes),
            (nameof(pool.MaximumLargePoolFreeBytes), pool.MaximumLargePoolFreeBytes, defaults.MaximumLargePoolFreeBytes),
        ];
        foreach (var (setting, _, _) in bounds.Where(b => b.Value > availableBytes && b.Value != b.Default))
        {
            failures.Add($"{StreamPoolSettings.SectionName}:{setting} must be at most the {availableBytes / (1024 * 1024)} MiB the process may use.");
        }
    }

    // The id may appear in responses, headers and logs, so it is kept to characters that need no escaping anywhere.
    private static bool IsValidId(string id) =>
        id.Length is > 0 and <= 64 && id.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.');

    private void ValidateKey(ConfiguredKey key, List<string> failures)
    {
        if (!IsValidId(key.Id))
        {
            failures.Add($"{SigningOptions.SectionName}:Keys has a key whose id is not 1 to 64 ASCII letters, digits, '-', '_' or '.'.");
            return;
        }

        if (!SigningKey.TryParseBase64(key.Base64, out _, out var problem))
        {
            failures.Add($"{key.Setting} (environment variable {key.EnvironmentVariable}) {problem}. Set it to a base64 string of at least {SigningKey.MinimumBytes} random bytes, for example the output of 'openssl rand -base64 32'.");
        }
        else if (!environment.IsDevelopment() && key.Base64!.Trim() == DevelopmentKey.Base64)
        {
            failures.Add($"{key.Setting} is the committed development key, which is refused in the '{environment.EnvironmentName}' environment. Set a key of your own.");
        }
    }

    private static void ValidateActiveKeyId(string? activeKeyId, IReadOnlyList<ConfiguredKey> keys, List<string> failures)
    {
        const string Setting = SigningOptions.SectionName + ":ActiveKeyId";
        var ids = string.Join(", ", keys.Where(k => IsValidId(k.Id)).Select(k => k.Id));
        if (string.IsNullOrWhiteSpace(activeKeyId))
        {
            if (keys.Count > 1)
            {
                failures.Add($"{Setting} (environment variable Signing__ActiveKeyId) is missing; with more than one key it must name the one that signs: one of {ids}.");
            }
        }
        else if (!keys.Any(k => k.Id == activeKeyId.Trim()))
        {
            failures.Add($"{Setting} names no configured key; configured ids: {ids}.");
        }
    }
}
