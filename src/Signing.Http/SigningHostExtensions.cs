using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Console;
using Microsoft.Extensions.Options;
using Signing.Http.Memory;
using Signing.Http.Telemetry;

namespace Signing.Http;

/// <summary>How both hosts run: a bad setting ends the process with one line that names it, not a stack trace.</summary>
public static class SigningHostExtensions
{
    /// <summary>
    /// Checks every setting the signing service reads, then runs <paramref name="host"/> until it stops, and disposes
    /// it. When a setting is invalid, nothing runs: one critical log entry names each bad setting (never its value) and
    /// the exit code is 1.
    /// </summary>
    /// <returns>The process's exit code: 0 after a normal stop, 1 for an invalid setting.</returns>
    /// <remarks>
    /// The checks are the ones <c>ValidateOnStart</c> runs, done before the host starts: a failure inside the host's
    /// start is logged with its stack trace, and rethrown as an unhandled exception. Where the host has no console
    /// logger (the Functions worker removes it, and exits before its logs could reach the Functions host), the line
    /// also goes to standard error, which the Functions host keeps in its logs, as a console or container log would.
    /// </remarks>
    public static int RunSigning(this IHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        using (host)
        {
            try
            {
                // The signing settings and the metrics export's together first: the host's validator below builds the
                // meter provider as it is made, which reads the export's options, so its failures alone were reported
                // and the signing settings' went unsaid. Then every ValidateOnStart check, and what is derived from them.
                ThrowIfInvalid(
                    () => host.Services.GetRequiredService<IOptions<SigningOptions>>().Value,
                    () => host.Services.GetRequiredService<IOptions<MetricsExportOptions>>().Value);
                host.Services.GetService<IStartupValidator>()?.Validate();
                _ = host.Services.GetRequiredService<StrategyBodyLimits>();
            }
            catch (Exception e) when (e is OptionsValidationException || IsBindingFailure(e))
            {
                var failures = e is OptionsValidationException validation
                    ? string.Join(" ", validation.Failures)
                    : string.Join(" ", SigningOptionsValidator.SectionsWhereValuesBelong(host.Services.GetRequiredService<IConfiguration>()).DefaultIfEmpty(e.Message));
                var logger = host.Services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(SigningHostExtensions));
                SigningLog.InvalidSettings(logger, failures);
                if (!host.Services.GetServices<ILoggerProvider>().OfType<ConsoleLoggerProvider>().Any())
                {
                    Console.Error.WriteLine($"Signing cannot start; fix these settings: {failures}");
                }

                return 1;
            }

            host.Run();
            return 0;
        }
    }

    // Reads each options value, which validates it, and throws once with the failures of all of them.
    private static void ThrowIfInvalid(params Func<object>[] optionsValues)
    {
        var failures = new List<string>();
        foreach (var value in optionsValues)
        {
            try
            {
                _ = value();
            }
            catch (OptionsValidationException e)
            {
                failures.AddRange(e.Failures);
            }
        }

        if (failures.Count > 0)
        {
            throw new OptionsValidationException(SigningOptions.SectionName, typeof(SigningOptions), failures);
        }
    }

    // The configuration binder reports a setting it cannot read as an InvalidOperationException of its own: a value
    // that does not convert to the setting's type (an empty number too), naming the setting, or a section where a
    // value belongs.
    private static bool IsBindingFailure(Exception exception) =>
        exception is InvalidOperationException && exception.TargetSite?.DeclaringType?.Assembly == typeof(ConfigurationBinder).Assembly;
}
