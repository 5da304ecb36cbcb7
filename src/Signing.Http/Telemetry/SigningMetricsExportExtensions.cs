using Azure.Identity;
using Azure.Monitor.OpenTelemetry.Exporter;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using OpenTelemetry.Exporter;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using Signing.Http.Stats;

namespace Signing.Http.Telemetry;

/// <summary>
/// Exports the service's metrics with OpenTelemetry, registered by <see cref="SigningServiceCollectionExtensions.AddSigning"/>
/// so that SigningServer runs, and its tests cover, the export the Functions app runs.
/// </summary>
public static class SigningMetricsExportExtensions
{
    /// <summary>
    /// The environment variable that turns the OTLP exporter on, with <see cref="OtlpMetricsEndpointVariable"/>. The SDK
    /// defaults the endpoint to <c>http://localhost:4317</c> once its exporter is registered, so the exporter is
    /// registered only when one of the two is set. The SDK then reads the general variables itself
    /// (<c>OTEL_EXPORTER_OTLP_PROTOCOL</c>, <c>OTEL_EXPORTER_OTLP_HEADERS</c>, <c>OTEL_METRIC_EXPORT_INTERVAL</c>, …), and
    /// the metrics forms of the endpoint, protocol and headers are applied over them here.
    /// </summary>
    public const string OtlpEndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>
    /// The metrics-only form of <see cref="OtlpEndpointVariable"/>, which many collectors' instructions give alone: the
    /// full URL metrics are posted to (with <c>http/protobuf</c>, <c>/v1/metrics</c> included), taking precedence over
    /// the general one for metrics.
    /// </summary>
    public const string OtlpMetricsEndpointVariable = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";

    // The metrics forms of the protocol and the headers, applied here and checked by OtlpExportSettingsValidator.
    internal const string OtlpMetricsProtocolVariable = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL";
    internal const string OtlpMetricsHeadersVariable = "OTEL_EXPORTER_OTLP_METRICS_HEADERS";

    /// <summary>
    /// The meters exported: the service's own, ASP.NET Core's and Kestrel's (inside the Functions worker these measure
    /// the hop from the host to the worker, not the clients), and the runtime's <c>System.Runtime</c> (collections per
    /// generation, heap sizes, allocation), which .NET 9 and later publish with no package.
    /// </summary>
    public static readonly IReadOnlyList<string> MeterNames =
    [
        SigningTelemetry.MeterName,
        "Microsoft.AspNetCore.Hosting",
        "Microsoft.AspNetCore.Server.Kestrel",
        "Microsoft.AspNetCore.Diagnostics",
        "System.Runtime",
    ];

    /// <summary>
    /// Adds an OpenTelemetry meter provider for <see cref="MeterNames"/>, exporting to nothing unless configured:
    /// OTLP when <see cref="OtlpEndpointVariable"/> is set in the environment, and Azure Monitor when
    /// <see cref="MetricsExportOptions.ConnectionStringSetting"/> is set, signed in as the managed identity named by
    /// <see cref="MetricsExportOptions.ManagedIdentityClientIdSetting"/> (a connection string without it stops the app
    /// at start-up), keeping exports it could not send where <see cref="MetricsExportOptions.StorageDirectory"/> says,
    /// or nowhere (<see cref="MetricsExportOptions.DisableOfflineStorage"/>). With neither, the provider has no reader and enables no instrument, so recording costs what it did
    /// before. Every export carries <c>service.name</c> (the host's application name) and <c>service.instance.id</c>
    /// (<see cref="InstanceStats"/>' instance and process), so metrics from many instances add up per strategy and can
    /// still be told apart. The provider is disposed with the host, which exports what it holds one last time: an
    /// instance that Flex Consumption scales in sends its last minute before it goes.
    /// </summary>
    public static IServiceCollection AddSigningMetricsExport(this IServiceCollection services)
    {
        services.AddOptions<MetricsExportOptions>()
            .Configure<IConfiguration>((options, configuration) =>
            {
                options.ApplicationInsightsConnectionString = configuration[MetricsExportOptions.ConnectionStringSetting];
                options.ManagedIdentityClientId = configuration[MetricsExportOptions.ManagedIdentityClientIdSetting];
                options.StorageDirectory = configuration[MetricsExportOptions.StorageDirectorySetting] is { Length: > 0 } directory ? directory : null;
                options.DisableOfflineStorage = configuration.GetValue<bool>(MetricsExportOptions.DisableOfflineStorageSetting);
            })
            .ValidateOnStart();
        services.AddSingleton<IValidateOptions<MetricsExportOptions>, MetricsExportOptionsValidator>();
        services.AddSingleton<IValidateOptions<MetricsExportOptions>, OtlpExportSettingsValidator>();

        // Decided when the provider is built, from the validated options, so configuration from any source counts. First,
        // so that the options are validated before the OTLP reader below is built: the SDK reads its own settings then,
        // and a bad one would end the process with a stack trace instead of the validators' one line.
        services.ConfigureOpenTelemetryMeterProvider((sp, metrics) =>
        {
            var instance = sp.GetRequiredService<InstanceStats>();
            // The application's name and the instance's as defaults: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read
            // again after them, take precedence, as the specification has it (the SDK's default builder reads them first,
            // where a later AddService overrode them).
            metrics.ConfigureResource(resource => resource
                .AddService(
                    serviceName: sp.GetRequiredService<IHostEnvironment>().ApplicationName,
                    autoGenerateServiceInstanceId: false,
                    serviceInstanceId: $"{instance.Id}/{instance.ProcessId}")
                .AddEnvironmentVariableDetector());

            var options = sp.GetRequiredService<IOptions<MetricsExportOptions>>().Value;
            if (!string.IsNullOrWhiteSpace(options.ApplicationInsightsConnectionString))
            {
                var credential = new ManagedIdentityCredential(ManagedIdentityId.FromUserAssignedClientId(options.ManagedIdentityClientId!));
                metrics.AddAzureMonitorMetricExporter(
                    exporter =>
                    {
                        exporter.ConnectionString = options.ApplicationInsightsConnectionString;
                        exporter.StorageDirectory = options.StorageDirectory;
                        exporter.DisableOfflineStorage = options.DisableOfflineStorage;
                    },
                    credential);
            }
        });

        services.AddOpenTelemetry().WithMetrics(metrics =>
        {
            metrics.AddMeter([.. MeterNames]);

            // Decided here, from the environment, because the SDK's OTLP registration adds services and so cannot be
            // added once the container is built; the SDK binds everything else about it from configuration.
            if (IsOtlpOn(Environment.GetEnvironmentVariable))
            {
                metrics.AddOtlpExporter();
            }
        });

        // The meter provider's AddOtlpExporter reads only the general OTLP variables (their metrics forms only
        // UseOtlpExporter does, which exports logs too): with OTEL_EXPORTER_OTLP_METRICS_ENDPOINT alone it sent
        // nothing. So the metrics forms are applied over the general ones, as the specification has them take
        // precedence; the validator has refused any the SDK could not read.
        services.AddOptions<OtlpExporterOptions>().Configure<IConfiguration>(ApplyMetricsForms);

        return services;
    }

    // An endpoint given in code is used as it is, without /v1/metrics appended: what the specification asks of the
    // metrics form.
    private static void ApplyMetricsForms(OtlpExporterOptions exporter, IConfiguration configuration)
    {
        if (Uri.TryCreate(configuration[OtlpMetricsEndpointVariable], UriKind.Absolute, out var endpoint))
        {
            exporter.Endpoint = endpoint;
        }

        switch (configuration[OtlpMetricsProtocolVariable]?.Trim())
        {
            case "grpc":
                exporter.Protocol = OtlpExportProtocol.Grpc;
                break;
            case "http/protobuf":
                exporter.Protocol = OtlpExportProtocol.HttpProtobuf;
                break;
        }

        if (configuration[OtlpMetricsHeadersVariable] is { Length: > 0 } headers)
        {
            exporter.Headers = headers;
        }
    }

    /// <summary>Whether the OTLP exporter is on: either endpoint variable set, read through <paramref name="read"/>.</summary>
    internal static bool IsOtlpOn(Func<string, string?> read) =>
        !string.IsNullOrWhiteSpace(read(OtlpEndpointVariable)) || !string.IsNullOrWhiteSpace(read(OtlpMetricsEndpointVariable));
}
