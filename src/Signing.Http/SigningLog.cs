using System.Globalization;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Primitives;

namespace Signing.Http;

/// <summary>
/// Every event the service logs, source-generated so that each is structured (its fields reach a log store as named
/// values, not only as text) and costs nothing when its level is off.
/// </summary>
/// <remarks>
/// Fields are chosen so that nothing secret or private can reach a log: strategy names, key ids, sizes, counts,
/// durations, status codes and the fixed problem titles. Never key material, never the body or any part of it, and
/// never a problem's detail, which may quote the body. The one text a caller chooses is a rejected sign's requested
/// strategy, from the query string (<see cref="RequestedStrategy"/>), quoted as the problem details quote it.
/// </remarks>
internal static partial class SigningLog
{
    [LoggerMessage(EventId = 1, EventName = "KeyRingLoaded", Level = LogLevel.Information,
        Message = "Signing with key {ActiveKeyId}; verifying with {KeyCount} keys: {KeyIds}")]
    public static partial void KeyRingLoaded(ILogger logger, string activeKeyId, int keyCount, string keyIds);

    [LoggerMessage(EventId = 2, EventName = "Signed", Level = LogLevel.Information,
        Message = "Signed {WidgetCount} widgets with {Strategy} and key {KeyId}: body {BodyBytes} B, signed {BytesSigned} B, " +
            "read {ReadMilliseconds} ms, parse {ParseMilliseconds} ms, sign {SignMilliseconds} ms, total {ElapsedMilliseconds} ms")]
    public static partial void Signed(
        ILogger logger, string strategy, string keyId, int widgetCount, long bodyBytes, long bytesSigned,
        double readMilliseconds, double parseMilliseconds, double signMilliseconds, double elapsedMilliseconds);

    [LoggerMessage(EventId = 3, EventName = "SignRejected", Level = LogLevel.Information,
        Message = "Sign with {Strategy} rejected with {StatusCode} ({Problem}): body {BodyBytes} B, total {ElapsedMilliseconds} ms")]
    public static partial void SignRejected(
        ILogger logger, string strategy, int statusCode, string? problem, long bodyBytes, double elapsedMilliseconds);

    [LoggerMessage(EventId = 4, EventName = "Verified", Level = LogLevel.Information,
        Message = "Verified {WidgetCount} widgets with {Strategy}: matched key {KeyId} after {KeysTried} of {KeyCount} keys; " +
            "body {BodyBytes} B, signed {BytesSigned} B, sign {SignMilliseconds} ms, total {ElapsedMilliseconds} ms")]
    public static partial void Verified(
        ILogger logger, string strategy, string keyId, int keysTried, int keyCount, int widgetCount, long bodyBytes, long bytesSigned,
        double signMilliseconds, double elapsedMilliseconds);

    [LoggerMessage(EventId = 5, EventName = "VerifyMismatch", Level = LogLevel.Warning,
        Message = "Signature of {WidgetCount} widgets matched none of {KeyCount} keys (strategy {Strategy}): " +
            "body {BodyBytes} B, signed {BytesSigned} B, sign {SignMilliseconds} ms, total {ElapsedMilliseconds} ms")]
    public static partial void VerifyMismatch(
        ILogger logger, string strategy, int keyCount, int widgetCount, long bodyBytes, long bytesSigned,
        double signMilliseconds, double elapsedMilliseconds);

    [LoggerMessage(EventId = 6, EventName = "VerifyRejected", Level = LogLevel.Information,
        Message = "Verify with {Strategy} rejected with {StatusCode} ({Problem}): body {BodyBytes} B, total {ElapsedMilliseconds} ms")]
    public static partial void VerifyRejected(
        ILogger logger, string strategy, int statusCode, string? problem, long bodyBytes, double elapsedMilliseconds);

    /// <summary>
    /// The strategy a rejected sign asked for, as its log line names it: cut to 64 characters and an ellipsis as the
    /// problem details cut it (<see cref="SignProblems.Excerpt"/>), several values joined with commas, and control and
    /// format characters replaced with <c>?</c>, so that a name can neither forge a log line nor reorder what a reader
    /// sees (the problem details need no such step: JSON escapes them).
    /// </summary>
    public static string RequestedStrategy(StringValues requested)
    {
        var excerpt = SignProblems.Excerpt(requested.ToString());
        return excerpt.Any(IsHidden) ? new string([.. excerpt.Select(c => IsHidden(c) ? '?' : c)]) : excerpt;
    }

    // Line breaks, escapes and other controls, and the invisible formatting marks (bidirectional overrides among them).
    private static bool IsHidden(char c) =>
        char.IsControl(c) || CharUnicodeInfo.GetUnicodeCategory(c) == UnicodeCategory.Format;

    [LoggerMessage(EventId = 7, EventName = "InvalidSettings", Level = LogLevel.Critical,
        Message = "Signing cannot start; fix these settings: {Failures}")]
    public static partial void InvalidSettings(ILogger logger, string failures);

    [LoggerMessage(EventId = 8, EventName = "BodyLimits", Level = LogLevel.Information,
        Message = "In-flight budget {BudgetBytes} B; largest body per strategy (B): {Limits}")]
    public static partial void BodyLimits(ILogger logger, long budgetBytes, string limits);
}
