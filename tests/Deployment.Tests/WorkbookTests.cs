using System.Text.Json;
using System.Text.RegularExpressions;

namespace Deployment.Tests;

/// <summary>
/// The aggregated view: the workbook infra/resources.bicep deploys over Application Insights, its charts' queries
/// (infra/signing-workbook.json), that they name the metrics and tags the app really exports, and that
/// docs/deploy.md gives each query as it is.
/// </summary>
public sealed partial class WorkbookTests
{
    private const string WorkbookFile = "infra/signing-workbook.json";
    private const string ExportFile = "src/Signing.Http/Telemetry/SigningMetricsExportExtensions.cs";

    private static BicepFile.Declaration Workbook() => Repo.Bicep("infra/resources.bicep").Resource("Microsoft.Insights/workbooks");

    private static List<(string Title, string Query, JsonElement Content)> Charts()
    {
        using var document = Repo.Json(WorkbookFile);
        return document.RootElement.GetProperty("items").EnumerateArray()
            .Where(i => i.GetProperty("type").GetInt32() == 3)
            .Select(i => i.GetProperty("content").Clone())
            .Select(c => (c.GetProperty("title").GetString()!, c.GetProperty("query").GetString()!, c))
            .ToList();
    }

    private static string Chart(string titleStart) =>
        Assert.Single(Charts(), c => c.Title.StartsWith(titleStart, StringComparison.Ordinal)).Query;

    /// <summary>A string constant of the app's source, so a renamed metric or setting fails here rather than in Azure.</summary>
    private static string Constant(string file, string name)
    {
        var match = Regex.Match(Repo.Read(file), $@"\b{Regex.Escape(name)}\s*=\s*""(?<value>[^""]+)""");
        Assert.True(match.Success, $"{file} has no constant {name}.");
        return match.Groups["value"].Value;
    }

    private static string Telemetry(string name) => Constant("src/Signing.Http/SigningTelemetry.cs", name);

    [Fact]
    public void A_shared_workbook_over_Application_Insights_is_deployed_with_the_infrastructure()
    {
        var workbook = Workbook();
        Assert.Matches(@"\bkind\s*:\s*'shared'", workbook.Body);
        Assert.Matches(@"\bname\s*:\s*guid\(applicationInsights\.id\b", workbook.Body);
        var properties = BicepFile.ObjectProperty(workbook.Body, "properties");
        Assert.Matches(@"\bsourceId\s*:\s*applicationInsights\.id\b", properties);
        Assert.Matches(@"\bcategory\s*:\s*'workbook'", properties);
        Assert.Matches(@"\bserializedData\s*:\s*string\(", properties);
        Assert.Matches(@"loadJsonContent\('signing-workbook\.json'\)", Repo.Bicep("infra/resources.bicep").Code);
    }

    [Fact]
    public void The_workbook_file_is_a_workbook_whose_charts_follow_its_time_range()
    {
        using var document = Repo.Json(WorkbookFile);
        Assert.Equal("Notebook/1.0", document.RootElement.GetProperty("version").GetString());
        var parameter = document.RootElement.GetProperty("items").EnumerateArray()
            .Where(i => i.GetProperty("type").GetInt32() == 9)
            .SelectMany(i => i.GetProperty("content").GetProperty("parameters").EnumerateArray())
            .Single(p => p.GetProperty("name").GetString() == "TimeRange");
        Assert.Equal(4, parameter.GetProperty("type").GetInt32());

        var charts = Charts();
        Assert.True(charts.Count >= 6, "The workbook should chart requests per second, latency, allocation, collections, ASP.NET Core's requests and Kestrel's connections.");
        foreach (var (title, _, content) in charts)
        {
            Assert.Equal("TimeRange", content.GetProperty("timeContextFromParameter").GetString());
            Assert.Equal("microsoft.insights/components", content.GetProperty("resourceType").GetString());
            Assert.Equal("timechart", content.GetProperty("visualization").GetString());
            Assert.False(string.IsNullOrWhiteSpace(title));
        }
    }

    [Fact]
    public void Requests_per_second_and_allocation_come_from_the_Signing_meter_by_its_strategy_tag()
    {
        var strategy = $@"customDimensions[""{Telemetry("StrategyTag")}""]";

        var rps = Chart("Requests per second");
        Assert.Contains($@"name == ""{Telemetry("RequestDurationName")}""", rps, StringComparison.Ordinal);
        Assert.Contains(strategy, rps, StringComparison.Ordinal);
        Assert.Contains("sum(valueCount)", rps, StringComparison.Ordinal);

        // The exporter sends a histogram as its sum and count per minute: their ratio is the mean per request.
        var allocated = Chart("Mean bytes allocated per request");
        Assert.Contains($@"name == ""{Telemetry("RequestAllocatedName")}""", allocated, StringComparison.Ordinal);
        Assert.Contains(strategy, allocated, StringComparison.Ordinal);
        Assert.Contains("sum(valueSum) / sum(valueCount)", allocated, StringComparison.Ordinal);
    }

    [Fact]
    public void Requests_per_second_are_split_by_the_outcome_the_Signing_meter_tags_them_with()
    {
        // Refused (503) and failed requests are counted in the same histogram as the signed ones: unsplit, a burst of
        // refusals would read as throughput.
        var rps = Chart("Requests per second");
        Assert.Contains($@"customDimensions[""{Telemetry("OutcomeTag")}""]", rps, StringComparison.Ordinal);
        var outcomes = OutcomeNames().Matches(Repo.Read("src/Signing.Http/SigningTelemetry.cs")).Select(m => m.Groups["name"].Value).ToList();
        Assert.Equal(["success", "refused", "failure"], outcomes);
        Assert.Contains(@"outcome == ""success"", ""signed""", rps, StringComparison.Ordinal);
        Assert.Contains(@"outcome == ""refused"", ""refused 503""", rps, StringComparison.Ordinal);
        Assert.Contains(@"""failed"")", rps, StringComparison.Ordinal);
        Assert.Contains("strcat(strategy, \" \", outcome)", rps, StringComparison.Ordinal);
    }

    [Fact]
    public void ASP_NET_Core_requests_are_counted_by_status_class_from_its_hosting_meter()
    {
        var requests = Chart("ASP.NET Core requests per second");
        Assert.Contains(@"name == ""http.server.request.duration""", requests, StringComparison.Ordinal);
        Assert.Contains(@"customDimensions[""http.response.status_code""]", requests, StringComparison.Ordinal);
        Assert.Contains("sum(valueCount) / 60.0", requests, StringComparison.Ordinal);
        Assert.Contains(@"""Microsoft.AspNetCore.Hosting""", Repo.Read(ExportFile), StringComparison.Ordinal);
    }

    [Fact]
    public void Kestrel_connections_open_and_queued_come_from_its_meter_summed_over_instances()
    {
        var connections = Chart("Kestrel connections");
        Assert.Contains(@"name in (""kestrel.active_connections"", ""kestrel.queued_connections"")", connections, StringComparison.Ordinal);
        // An up-down counter is exported as its level: averaged per instance within the minute, then added up.
        Assert.Contains("by name, cloud_RoleInstance, bin(timestamp, 1m)", connections, StringComparison.Ordinal);
        Assert.Contains("sum(connections) by name, timestamp", connections, StringComparison.Ordinal);
        Assert.Contains(@"""Microsoft.AspNetCore.Server.Kestrel""", Repo.Read(ExportFile), StringComparison.Ordinal);
    }

    [Fact]
    public void Percentiles_come_from_the_hosts_request_telemetry_with_the_strategy_from_the_app_s_log()
    {
        // The exporter sends no histogram buckets, so percentiles cannot come from the Signing meter.
        var latency = Chart("Server p50 and p99");
        Assert.StartsWith("requests", latency, StringComparison.Ordinal);
        Assert.Contains(@"where name == ""sign""", latency, StringComparison.Ordinal);
        Assert.Contains("percentile(duration, 50)", latency, StringComparison.Ordinal);
        Assert.Contains("percentile(duration, 99)", latency, StringComparison.Ordinal);

        // Which holds only while the host keeps every request: sampling would drop some of each strategy's.
        using var host = Repo.Json("host.json");
        var insights = host.RootElement.GetProperty("logging").GetProperty("applicationInsights");
        Assert.Contains("Request", insights.GetProperty("samplingSettings").GetProperty("excludedTypes").GetString()!.Split(';'));

        // The host records a request's URL without its query (unless enableQueryStringTracing, which would record ?code=
        // as well), so ?strategy= is not there to read: the strategy comes from the app's log event of the same request.
        Assert.False(insights.TryGetProperty("enableQueryStringTracing", out _), "host.json would record function keys.");
        Assert.DoesNotContain("url", latency, StringComparison.Ordinal);
        Assert.Contains("on operation_Id", latency, StringComparison.Ordinal);
        var patterns = Regex.Matches(latency, @"extract\(@""(?<pattern>[^""]+)"", 1, message\)").Select(m => m.Groups["pattern"].Value).ToList();
        Assert.Equal(2, patterns.Count);
        // A rejected request names the strategy as the client wrote it: only the app's own strategies make series.
        var listed = Regex.Match(latency, @"where strategy in \((?<names>[^)]*)\)");
        Assert.True(listed.Success, "the chart takes any text for a strategy");
        var strategies = Directory.EnumerateFiles(Repo.PathOf("src/Signing"), "*.cs", SearchOption.AllDirectories)
            .Select(file => Regex.Match(File.ReadAllText(file), @"const string StrategyName = ""(?<name>[a-z0-9]+)"""))
            .Where(m => m.Success)
            .Select(m => m.Groups["name"].Value)
            .Order(StringComparer.Ordinal);
        Assert.Equal(strategies, Regex.Matches(listed.Groups["names"].Value, @"""(?<name>[^""]+)""").Select(m => m.Groups["name"].Value).Order(StringComparer.Ordinal));
        Assert.Contains("tolower(", latency, StringComparison.Ordinal);

        foreach (var eventName in new[] { "Signed", "SignRejected" })
        {
            var message = LogMessage(eventName, strategy: "recyclablehash");
            Assert.Single(patterns, pattern => Regex.Match(message, pattern) is { Success: true } found && found.Groups[1].Value == "recyclablehash");
        }
    }

    // SigningLog's message for eventName as the logger formats it: the template's parts joined, the strategy where
    // {Strategy} stands and a number for every other field.
    private static string LogMessage(string eventName, string strategy)
    {
        var source = Repo.Read("src/Signing.Http/SigningLog.cs");
        var attribute = Regex.Match(source, $@"EventName = ""{eventName}"",[^)]*?Message =(?<parts>(\s*\+?\s*""[^""]*"")+)");
        Assert.True(attribute.Success, $"SigningLog has no event {eventName} with a message.");
        var template = string.Concat(Regex.Matches(attribute.Groups["parts"].Value, @"""(?<text>[^""]*)""").Select(m => m.Groups["text"].Value));
        return Regex.Replace(template.Replace("{Strategy}", strategy, StringComparison.Ordinal), @"\{\w+\}", "12");
    }

    [Fact]
    public void Collections_per_generation_come_from_the_runtime_meter()
    {
        var gc = Chart("GC collections");
        Assert.Contains(@"name == ""dotnet.gc.collections""", gc, StringComparison.Ordinal);
        Assert.Contains(@"customDimensions[""gc.heap.generation""]", gc, StringComparison.Ordinal);
        Assert.Contains("System.Runtime", Repo.Read(ExportFile), StringComparison.Ordinal);
    }

    [Fact]
    public void The_guide_gives_every_chart_query_as_the_workbook_runs_it()
    {
        var docs = Repo.Read("docs/deploy.md").Replace("\r\n", "\n", StringComparison.Ordinal);
        var blocks = KustoBlock().Matches(docs).Select(m => m.Groups["query"].Value.TrimEnd()).ToList();
        foreach (var (title, query, _) in Charts())
        {
            Assert.True(blocks.Contains(query.TrimEnd()), $"docs/deploy.md has no ```kusto block with the query of '{title}':{Environment.NewLine}{query}");
        }
    }

    [Fact]
    public void The_app_exports_to_the_connection_string_as_the_identity_that_may_publish_metrics()
    {
        var resources = Repo.Bicep("infra/resources.bicep");
        var settings = BicepFile.ObjectProperty(
            Assert.Single(resources.Resources("Microsoft.Web/sites/config")).Body, "properties");
        var clientIdSetting = Constant("src/Signing.Http/Telemetry/MetricsExportOptions.cs", "ManagedIdentityClientIdSetting").Replace(":", "__", StringComparison.Ordinal);
        Assert.Matches($@"\b{Regex.Escape(clientIdSetting)}\s*:\s*identity\.properties\.clientId\b", settings);
        var connectionString = Constant("src/Signing.Http/Telemetry/MetricsExportOptions.cs", "ConnectionStringSetting");
        Assert.Matches($@"\b{connectionString}\s*:\s*applicationInsights\.properties\.ConnectionString\b", settings);
        // BicepTests checks that the identity holds Monitoring Metrics Publisher on Application Insights.
        Assert.Contains("3913510d-42f4-4e42-8a64-420c390055eb", resources.Code, StringComparison.Ordinal);
    }

    [GeneratedRegex(@"^```kusto\n(?<query>.*?)^```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex KustoBlock();

    // The outcome tag's values, as SigningTelemetry.Record names them.
    [GeneratedRegex(@"(?:RequestOutcome\.\w+|_)\s*=>\s*""(?<name>\w+)""")]
    private static partial Regex OutcomeNames();
}
