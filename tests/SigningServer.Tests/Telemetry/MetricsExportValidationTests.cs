using Signing.Http.Telemetry;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// An Application Insights connection string with no managed identity to send as stops the host as it starts, with one
/// line that names both settings and never repeats the connection string.
/// </summary>
public sealed class MetricsExportValidationTests
{
    // The shape Azure gives; the key is all zeros and the endpoint is loopback, so nothing here could reach Azure.
    private const string ConnectionString = "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1/";

    [Fact]
    public void A_connection_string_without_a_client_id_stops_the_host_naming_the_setting()
    {
        var (thrown, message, log) = StartupFailure.Catch(SigningServerFactory.TestingEnvironment, new Dictionary<string, string?>
        {
            ["Signing:Key"] = TestKey.Base64,
            [MetricsExportOptions.ConnectionStringSetting] = ConnectionString,
        });

        Assert.DoesNotContain('\n', message);
        Assert.Contains(MetricsExportOptions.ManagedIdentityClientIdSetting, message, StringComparison.Ordinal);
        Assert.Contains(MetricsExportOptions.ConnectionStringSetting, message, StringComparison.Ordinal);
        Assert.DoesNotContain("InstrumentationKey", thrown.ToString(), StringComparison.Ordinal);
        Assert.All(log, entry => Assert.DoesNotContain("InstrumentationKey", entry, StringComparison.Ordinal));
    }

    // The shapes that ended the process with the exporter's stack trace, which quoted the connection string.
    [Theory]
    [InlineData("garbage-x")]
    [InlineData("InstrumentationKey=00000000-0000-0000-0000-000000000000;LiveEndpoint")]
    [InlineData("InstrumentationKey=00000000-0000-0000-0000-000000000000;LiveEndpoint=")]
    [InlineData("IngestionEndpoint=https://127.0.0.1/")]
    [InlineData("InstrumentationKey=not-a-guid-at-all")]
    [InlineData("InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=not a url")]
    public void A_connection_string_the_exporter_cannot_read_is_refused_without_repeating_it(string connectionString)
    {
        var options = new MetricsExportOptions { ApplicationInsightsConnectionString = connectionString, ManagedIdentityClientId = "11111111-2222-3333-4444-555555555555" };

        var result = new MetricsExportOptionsValidator().Validate(null, options);

        Assert.True(result.Failed);
        Assert.Contains(MetricsExportOptions.ConnectionStringSetting, result.FailureMessage, StringComparison.Ordinal);
        Assert.DoesNotContain(connectionString, result.FailureMessage, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(ConnectionString, "11111111-2222-3333-4444-555555555555", true)]
    [InlineData(ConnectionString, "notaguid", false)]
    [InlineData(ConnectionString, null, false)]
    [InlineData(ConnectionString, " ", false)]
    [InlineData(null, null, true)]
    [InlineData("", null, true)]
    [InlineData(null, "11111111-2222-3333-4444-555555555555", true)]
    public void A_client_id_is_required_exactly_when_a_connection_string_is_set(string? connectionString, string? clientId, bool valid)
    {
        var options = new MetricsExportOptions { ApplicationInsightsConnectionString = connectionString, ManagedIdentityClientId = clientId };

        var result = new MetricsExportOptionsValidator().Validate(null, options);

        Assert.Equal(valid, result.Succeeded);
    }
}
