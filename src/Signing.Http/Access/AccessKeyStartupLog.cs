using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Signing.Http.Access;

/// <summary>
/// Says once, as the host starts, whether the endpoints need an access key: a warning outside Development when none is
/// configured, since a server that faces clients then signs for anyone; an information line when keys are configured;
/// nothing when the endpoints are open in Development.
/// </summary>
/// <remarks>
/// A hosted service, so that it runs after <see cref="SigningHostExtensions.RunSigning"/> has checked the settings: a
/// bad key ends the process with its one line first, and this line is never logged beside it.
/// </remarks>
internal sealed class AccessKeyStartupLog(AccessKeys keys, IHostEnvironment environment, ILogger<AccessKeys> logger) : IHostedService
{
    /// <inheritdoc/>
    public Task StartAsync(CancellationToken cancellationToken)
    {
        if (!keys.IsOpen)
        {
            AccessKeyLog.Required(logger, keys.Count);
        }
        else if (!environment.IsDevelopment())
        {
            AccessKeyLog.Open(logger, environment.EnvironmentName);
        }

        return Task.CompletedTask;
    }

    /// <inheritdoc/>
    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
