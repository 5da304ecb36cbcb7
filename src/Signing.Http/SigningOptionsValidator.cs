using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Signing.Http;

/// <summary>
/// Refuses to start with options that would fail later or sign unsafely. Messages name the setting and never
/// repeat the key.
/// </summary>
public sealed class SigningOptionsValidator(IHostEnvironment environment) : IValidateOptions<SigningOptions>
{
    /// <inheritdoc/>
    public ValidateOptionsResult Validate(string? name, SigningOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        const string Key = SigningOptions.SectionName + ":Key";

        if (!SigningKey.TryParseBase64(options.Key, out _, out var problem))
        {
            failures.Add($"{Key} (environment variable Signing__Key) {problem}. Set it to a base64 string of at least {SigningKey.MinimumBytes} random bytes, for example the output of 'openssl rand -base64 32'.");
        }
        else if (!environment.IsDevelopment() && options.Key!.Trim() == DevelopmentKey.Base64)
        {
            failures.Add($"{Key} is the committed development key, which is refused in the '{environment.EnvironmentName}' environment. Set a key of your own.");
        }

        if (options.MaxRequestBodyBytes is < 1024 or > int.MaxValue)
        {
            failures.Add($"{SigningOptions.SectionName}:MaxRequestBodyBytes must be between 1 KiB and 2 GiB.");
        }

        failures.AddRange(options.Buffers.Validate().Select(f => $"{SigningOptions.SectionName}:Buffers:{f}"));
        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
