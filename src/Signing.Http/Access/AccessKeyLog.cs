using Microsoft.Extensions.Logging;

namespace Signing.Http.Access;

/// <summary>
/// The events about access keys, source-generated as <see cref="SigningLog"/>'s are. They say how many keys there are
/// and whether the endpoints are open, never a key or its name.
/// </summary>
internal static partial class AccessKeyLog
{
    [LoggerMessage(EventId = 20, EventName = "AccessKeysRequired", Level = LogLevel.Information,
        Message = "Sign, verify and stats require one of {KeyCount} access keys (x-functions-key header or code query parameter)")]
    public static partial void Required(ILogger logger, int keyCount);

    [LoggerMessage(EventId = 21, EventName = "EndpointsOpen", Level = LogLevel.Warning,
        Message = "Signing:AccessKeys is not set, so sign, verify and stats are open to anyone who reaches this server in the '{Environment}' environment; set Signing:AccessKeys:<name> or let a front end check callers")]
    public static partial void Open(ILogger logger, string environment);
}
