using System.Text.Json;
using System.Text.Json.Serialization;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Signing.Http.Access;

namespace Signing.Http;

/// <summary>
/// How <c>GET /api/health</c> answers: each check's status, description and figures as JSON, so a probe sees not only
/// whether the in-flight budget has room but how much. A degraded service still answers 200 (it is serving, and
/// refusing what does not fit); only an unhealthy one answers 503. With access keys set the figures are left out:
/// health needs no key, and how full the budget is would tell anyone when to strike; key holders read them in
/// <c>/api/stats</c>.
/// </summary>
public static class SigningHealthResponse
{
    /// <summary>The options to map the health checks with.</summary>
    public static HealthCheckOptions Options { get; } = new()
    {
        ResponseWriter = WriteAsync,
        ResultStatusCodes =
        {
            [HealthStatus.Healthy] = StatusCodes.Status200OK,
            [HealthStatus.Degraded] = StatusCodes.Status200OK,
            [HealthStatus.Unhealthy] = StatusCodes.Status503ServiceUnavailable,
        },
    };

    private static readonly JsonSerializerOptions WithoutNulls = new() { DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull };

    private static Task WriteAsync(HttpContext context, HealthReport report)
    {
        context.Response.ContentType = "application/json";
        context.Response.Headers.CacheControl = "no-store";
        var figures = context.RequestServices.GetService<AccessKeys>() is not { IsOpen: false };
        var body = new
        {
            status = report.Status.ToString(),
            checks = report.Entries.ToDictionary(
                e => e.Key,
                e => new { status = e.Value.Status.ToString(), description = e.Value.Description, data = figures ? e.Value.Data : null }),
        };
        return JsonSerializer.SerializeAsync(context.Response.Body, body, WithoutNulls, context.RequestAborted);
    }
}
