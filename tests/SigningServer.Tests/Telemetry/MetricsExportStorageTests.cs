using Signing.Http.Telemetry;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// Where the Azure Monitor exporter keeps the exports it could not send, seen on disk from a real SigningServer: its
/// default under <c>$TMPDIR</c>, the folder <see cref="MetricsExportOptions.StorageDirectorySetting"/> names instead,
/// and nothing at all with <see cref="MetricsExportOptions.DisableOfflineStorageSetting"/>. The connection string's
/// endpoint is loopback and the process is killed before its first export, so nothing here reaches Azure.
/// </summary>
public sealed class MetricsExportStorageTests
{
    private const string ConnectionString = "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/";

    [Fact]
    public async Task By_default_the_exporter_keeps_failed_exports_under_TMPDIR_Microsoft_AzureMonitor()
    {
        using var folders = new TempFolders();

        await StartAndKillAsync(new() { ["TMPDIR"] = folders.Temp });

        Assert.NotEmpty(Directory.GetDirectories(Path.Combine(folders.Temp, "Microsoft", "AzureMonitor")));
    }

    [Fact]
    public async Task The_storage_directory_setting_moves_them()
    {
        using var folders = new TempFolders();

        await StartAndKillAsync(new()
        {
            ["TMPDIR"] = folders.Temp,
            [Variable(MetricsExportOptions.StorageDirectorySetting)] = folders.Chosen,
        });

        Assert.NotEmpty(Directory.GetDirectories(folders.Chosen));
        Assert.False(Directory.Exists(Path.Combine(folders.Temp, "Microsoft")), "The exporter still used TMPDIR.");
    }

    [Fact]
    public async Task Disabling_offline_storage_writes_nothing()
    {
        using var folders = new TempFolders();

        await StartAndKillAsync(new()
        {
            ["TMPDIR"] = folders.Temp,
            [Variable(MetricsExportOptions.DisableOfflineStorageSetting)] = "true",
        });

        // Only the exporter's folder is looked for: the runtime puts its diagnostics socket in TMPDIR too.
        Assert.False(Directory.Exists(Path.Combine(folders.Temp, "Microsoft")), "The exporter made its storage folder.");
    }

    [Theory]
    [InlineData("/var/lib/signing/azure-monitor", false, true)]
    [InlineData("azure-monitor", false, false)]
    [InlineData("./azure-monitor", false, false)]
    [InlineData("/var/lib/signing/azure-monitor", true, false)]
    [InlineData(null, true, true)]
    [InlineData(null, false, true)]
    public void The_storage_directory_must_be_absolute_and_not_set_beside_disabled_storage(string? directory, bool disabled, bool valid)
    {
        var options = new MetricsExportOptions { StorageDirectory = directory, DisableOfflineStorage = disabled };

        var result = new MetricsExportOptionsValidator().Validate(null, options);

        Assert.Equal(valid, result.Succeeded);
        if (!valid)
        {
            Assert.Contains(directory is null || disabled ? MetricsExportOptions.DisableOfflineStorageSetting : MetricsExportOptions.StorageDirectorySetting, result.FailureMessage, StringComparison.Ordinal);
        }
    }

    private static string Variable(string setting) => setting.Replace(":", "__", StringComparison.Ordinal);

    // The exporter makes its folder as the meter provider is built, before the server listens.
    private static async Task StartAndKillAsync(Dictionary<string, string> environment)
    {
        environment[MetricsExportOptions.ConnectionStringSetting] = ConnectionString;
        environment[Variable(MetricsExportOptions.ManagedIdentityClientIdSetting)] = "11111111-2222-3333-4444-555555555555";
        await using var server = await SigningServerProcess.StartAsync(environment);
    }

    private sealed class TempFolders : IDisposable
    {
        private readonly DirectoryInfo _root = Directory.CreateTempSubdirectory("signing-storage-");

        public TempFolders()
        {
            Directory.CreateDirectory(Temp);
        }

        public string Temp => Path.Combine(_root.FullName, "tmp");

        public string Chosen => Path.Combine(_root.FullName, "chosen");

        public void Dispose() => _root.Delete(recursive: true);
    }
}
