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
    private const string Key = "InstrumentationKey=00000000-0000-0000-0000-000000000000";

    private const string ConnectionString = Key + ";IngestionEndpoint=https://127.0.0.1/";

    private const string ClientId = "11111111-2222-3333-4444-555555555555";

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

    // Shapes the exporter cannot read or send to: those it reads as it starts ended the process with its stack trace,
    // which quoted the connection string or a part of it.
    [Theory]
    [InlineData("garbage-x", "has a part that is not a name=value pair")]
    [InlineData("=x;" + ConnectionString, "has a part that is not a name=value pair")]
    [InlineData(ConnectionString + ";LiveEndpoint", "has a part that is not a name=value pair")]
    [InlineData(ConnectionString + ";LiveEndpoint=", "has a part that is not a name=value pair")]
    [InlineData(";" + ConnectionString, "has a part that is not a name=value pair")]
    [InlineData(ConnectionString + ";;", "has a part that is not a name=value pair")]
    [InlineData(ConnectionString + "; ", "has a part that is not a name=value pair")]
    [InlineData(Key + "; ;IngestionEndpoint=https://127.0.0.1/", "has a part that is not a name=value pair")]
    [InlineData(ConnectionString + ";ingestionendpoint=https://127.0.0.2/", "has ingestionendpoint twice")]
    [InlineData(Key + ";EndpointSuffix=x y", "has an EndpointSuffix that does not make a host name")]
    [InlineData(Key + ";EndpointSuffix=contoso.com;Location=west-us", "has a Location that is not a region's name (letters and digits only)")]
    [InlineData("IngestionEndpoint=https://127.0.0.1/", "has no InstrumentationKey")]
    [InlineData("InstrumentationKey=not-a-guid-at-all", "has an InstrumentationKey that is not a Guid")]
    [InlineData(Key + ";IngestionEndpoint=not a url", "has an endpoint, IngestionEndpoint, that is not an http or https URL")]
    [InlineData(Key + ";LiveEndpoint=ftp://127.0.0.1/", "has an endpoint, LiveEndpoint, that is not an http or https URL")]
    public void A_connection_string_the_exporter_cannot_read_is_refused_saying_why_without_repeating_it(string connectionString, string problem)
    {
        var result = Validate(connectionString);

        Assert.True(result.Failed);
        Assert.Equal($"APPLICATIONINSIGHTS_CONNECTION_STRING {problem}: copy it whole from the Application Insights resource's overview.", result.FailureMessage);
    }

    // As the Azure portal gives it, with a ';' at the end, with blanks around the parts, names and values, and with a
    // suffix and a region trimmed of dots: each one the exporter reads, as the next test shows.
    public static TheoryData<string> Readable =>
    [
        ConnectionString + ";",
        " InstrumentationKey = 00000000-0000-0000-0000-000000000000; IngestionEndpoint=https://127.0.0.1/ ",
        ConnectionString + ";LiveEndpoint=http://127.0.0.1/;ApplicationId=app",
        Key + ";EndpointSuffix=.contoso.com;Location=westus.",
    ];

    [Theory]
    [MemberData(nameof(Readable))]
    public void A_connection_string_the_exporter_reads_passes(string connectionString) =>
        Assert.True(Validate(connectionString).Succeeded);

    // What passes must not end the process in the exporter instead: it reads the connection string as the meter provider
    // is built, before the server listens. Offline storage off, so that nothing is written.
    [Theory]
    [MemberData(nameof(Readable))]
    public async Task A_connection_string_that_passes_starts_the_server_with_the_exporter_on(string connectionString)
    {
        await using var server = await SigningServerProcess.StartAsync(new Dictionary<string, string>
        {
            [MetricsExportOptions.ConnectionStringSetting] = connectionString,
            ["Signing__MetricsExport__ManagedIdentityClientId"] = ClientId,
            ["Signing__MetricsExport__DisableOfflineStorage"] = "true",
        });

        Assert.DoesNotContain("Exception", server.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(4096, true)]
    [InlineData(4097, false)]
    public void A_connection_string_is_read_up_to_4096_characters(int length, bool valid)
    {
        var connectionString = ConnectionString + ";ApplicationId=" + new string('a', length - ConnectionString.Length - ";ApplicationId=".Length);

        var result = Validate(connectionString);

        Assert.Equal(valid, result.Succeeded);
        Assert.Equal(valid ? null : "APPLICATIONINSIGHTS_CONNECTION_STRING is longer than the 4096 characters the exporter reads: copy it whole from the Application Insights resource's overview.", result.FailureMessage);
    }

    [Theory]
    [InlineData(null, "APPLICATIONINSIGHTS_CONNECTION_STRING is set, so metrics are exported to Application Insights, but Signing:MetricsExport:ManagedIdentityClientId is not: set it to the client id of the user-assigned managed identity that holds Monitoring Metrics Publisher on that resource, or unset the connection string.")]
    [InlineData("notaguid", "Signing:MetricsExport:ManagedIdentityClientId is not a client id: it is a Guid, the managed identity's client id.")]
    public void A_missing_or_malformed_client_id_is_refused_saying_which(string? clientId, string message)
    {
        var result = new MetricsExportOptionsValidator().Validate(null, new MetricsExportOptions { ApplicationInsightsConnectionString = ConnectionString, ManagedIdentityClientId = clientId });

        Assert.Equal(message, result.FailureMessage);
    }

    [Fact]
    public void Missing_options_are_refused_by_name() =>
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => new MetricsExportOptionsValidator().Validate(null, null!)).ParamName);

    [Theory]
    [InlineData(ConnectionString, ClientId, true)]
    [InlineData(ConnectionString, "notaguid", false)]
    [InlineData(ConnectionString, null, false)]
    [InlineData(ConnectionString, " ", false)]
    [InlineData(null, null, true)]
    [InlineData("", null, true)]
    [InlineData(null, ClientId, true)]
    public void A_client_id_is_required_exactly_when_a_connection_string_is_set(string? connectionString, string? clientId, bool valid)
    {
        var options = new MetricsExportOptions { ApplicationInsightsConnectionString = connectionString, ManagedIdentityClientId = clientId };

        var result = new MetricsExportOptionsValidator().Validate(null, options);

        Assert.Equal(valid, result.Succeeded);
    }

    private static Microsoft.Extensions.Options.ValidateOptionsResult Validate(string connectionString) =>
        new MetricsExportOptionsValidator().Validate(null, new MetricsExportOptions { ApplicationInsightsConnectionString = connectionString, ManagedIdentityClientId = ClientId });
}
