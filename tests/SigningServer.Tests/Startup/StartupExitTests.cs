using System.Diagnostics;
using Signing.Tests.Processes;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Startup;

/// <summary>
/// SigningServer as an operator starts it, as a process: a bad key or setting ends it with exit code 1 and one log
/// entry naming the setting, never its value, and no unhandled-exception dump or stack trace.
/// </summary>
public sealed class StartupExitTests
{
    // python3 -c "import base64; print(base64.b64encode(bytes(range(31))).decode())"
    private const string ThirtyOneByteKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==";

    public static TheoryData<string, string?, string, string> BadSettings() => new()
    {
        { "Signing__Key", null, "Signing:Key", "is missing" },
        { "Signing__Key", "not base64 at all, but long enough to be a key!!", "Signing:Key", "not valid base64" },
        { "Signing__Key", ThirtyOneByteKey, "Signing:Key", "31 bytes" },
        { "Signing__Key", "REVWLU9OTFkgc2lnbmluZyBrZXksIE5PVCBTRUNSRVQ=", "Signing:Key", "development key" },
        { "Signing__MaxRequestBodyBytes", "10", "Signing:MaxRequestBodyBytes", "must be from 1024 to 2147483647 bytes" },
        { "Signing__BodyStallTimeout", "00:01:00", "Signing:BodyStallTimeout", "between" },
        { "Signing__MaxDecompressionRatio", "1", "Signing:MaxDecompressionRatio", "must be from 2" },
        { "Signing__AccessKeys__ops", "0123456789abcdefghijklmnopqrstu", "Signing:AccessKeys:ops", "too short" },
        { "Signing__AccessKeys__ops__key", "0123456789abcdefghijklmnopqrstuvwxyz", "Signing:AccessKeys:ops", "has settings under it" },
        { "Signing__Keys__next__key", TestKey.Base64, "Signing:Keys:next", "has settings under it" },
        { "Signing__ActiveKeyId__x", "default", "Signing:ActiveKeyId", "has settings under it" },
        { "Signing__Key__x", TestKey.Base64, "Signing:Key", "has settings under it" },
        { "Signing__MaxRequestBodyByte", "1024", "Signing:MaxRequestBodyByte", "is not a setting" },
    };

    /// <summary>
    /// Every numeric limit, negative, zero, past what it can mean, past its type, and not a number. Kestrel's options
    /// read the body limit while the host is built, before the settings are checked; -1 there used to end the process
    /// with exit code 134 and an exception dump.
    /// </summary>
    public static TheoryData<string, string?, string, string> BadLimits()
    {
        string[] numbers = ["-1", "0", "9223372036854775807", "99999999999999999999", "lots", "", " "];
        string[] limits =
        [
            "MaxRequestBodyBytes", "MaxInFlightBytes", "RecyclableMemoryStream:BlockSize", "RecyclableMemoryStream:LargeBufferMultiple",
            "RecyclableMemoryStream:MaximumBufferSize", "RecyclableMemoryStream:MaximumSmallPoolFreeBytes", "RecyclableMemoryStream:MaximumLargePoolFreeBytes",
        ];
        var data = new TheoryData<string, string?, string, string>();
        foreach (var limit in limits)
        {
            // An empty budget is the default one.
            foreach (var number in numbers.Where(n => n.Length > 0 || limit != "MaxInFlightBytes"))
            {
                // Values that do not fit the setting's type fail in the configuration binder; the rest in the validator.
                var fitsLong = long.TryParse(number, out _);
                var fitsType = limit is "RecyclableMemoryStream:BlockSize" or "RecyclableMemoryStream:LargeBufferMultiple" or "RecyclableMemoryStream:MaximumBufferSize"
                    ? int.TryParse(number, out _)
                    : fitsLong;
                data.Add("Signing__" + limit.Replace(":", "__", StringComparison.Ordinal), number, "Signing:" + limit, fitsType ? "must be" : "Failed to convert");
            }
        }

        string[] timeouts = ["-00:00:01", "00:00:00", "10675199.02:48:05.4775807", "99999999.00:00:00", "lots"];
        foreach (var timeout in timeouts)
        {
            data.Add("Signing__BodyStallTimeout", timeout, "Signing:BodyStallTimeout", TimeSpan.TryParse(timeout, System.Globalization.CultureInfo.InvariantCulture, out _) ? "must be" : "Failed to convert");
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(BadSettings))]
    [MemberData(nameof(BadLimits))]
    public async Task A_bad_setting_ends_the_process_with_one_line_naming_it(string variable, string? value, string setting, string says)
    {
        var output = await RunServerAsync(variable, value);

        Assert.Equal(1, output.ExitCode);
        var text = output.Text;
        Assert.Equal(1, Count(text, "Signing cannot start; fix these settings: "));
        Assert.Contains(setting, text, StringComparison.Ordinal);
        Assert.Contains(says, text, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", text, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Exception", text, StringComparison.Ordinal);
        if (variable.Contains("Key", StringComparison.Ordinal) && value is not null)
        {
            Assert.DoesNotContain(value, text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_budget_in_which_no_strategy_can_take_a_body_ends_the_process_with_one_line()
    {
        // A 1 MiB budget with 1 MiB blocks: every request is charged two blocks before its first byte is worth anything.
        var output = await RunServerAsync(new Dictionary<string, string?>
        {
            ["Signing__MaxInFlightBytes"] = "1048576",
            ["Signing__RecyclableMemoryStream__BlockSize"] = "1048576",
        });

        Assert.Equal(1, output.ExitCode);
        Assert.Equal(1, Count(output.Text, "Signing cannot start; fix these settings: "));
        Assert.Contains("Signing:MaxInFlightBytes (1048576 bytes) cannot hold a request of any size with any strategy", output.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", output.Text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("OTEL_METRIC_EXPORT_INTERVAL", "0")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "garbage")]
    public async Task An_otlp_setting_the_sdk_cannot_read_ends_the_process_with_one_line(string variable, string value)
    {
        // The SDK reads these as the meter provider is built, which used to end the process with its stack trace.
        var output = await RunServerAsync(new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:4318",
            [variable] = value,
        });

        Assert.Equal(1, output.ExitCode);
        Assert.Equal(1, Count(output.Text, "Signing cannot start; fix these settings: "));
        Assert.Contains(variable, output.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", output.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_bad_export_setting_beside_a_bad_signing_setting_names_both_in_one_line()
    {
        // The export's options were read as the meter provider was built, before the signing settings were checked,
        // so only the export's failure was named.
        var output = await RunServerAsync(new Dictionary<string, string?>
        {
            ["Signing__MaxRequestBodyBytes"] = "100",
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = "notaurl",
        });

        Assert.Equal(1, output.ExitCode);
        Assert.Equal(1, Count(output.Text, "Signing cannot start; fix these settings: "));
        var line = output.Text.Split('\n').Single(l => l.Contains("Signing cannot start; fix these settings: ", StringComparison.Ordinal));
        Assert.Contains("Signing:MaxRequestBodyBytes", line, StringComparison.Ordinal);
        Assert.Contains("OTEL_EXPORTER_OTLP_ENDPOINT", line, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", output.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_process_with_less_memory_than_the_pool_s_default_is_told_what_to_set_about_its_memory()
    {
        // 80 MiB of heap: the free pool's default (128 MiB) is more, and was refused naming MaximumSmallPoolFreeBytes,
        // which nobody set, instead of the line about the in-flight budget.
        var output = await RunServerAsync("DOTNET_GCHeapHardLimit", "0x5000000");

        Assert.Equal(1, output.ExitCode);
        Assert.Equal(1, Count(output.Text, "Signing cannot start; fix these settings: "));
        Assert.Contains("Signing:MaxInFlightBytes", output.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("MaximumSmallPoolFreeBytes", output.Text, StringComparison.Ordinal);
    }

    private static int Count(string text, string part)
    {
        var count = 0;
        for (var at = text.IndexOf(part, StringComparison.Ordinal); at >= 0; at = text.IndexOf(part, at + part.Length, StringComparison.Ordinal))
        {
            count++;
        }

        return count;
    }

    private static Task<(int ExitCode, string Text)> RunServerAsync(string variable, string? value) =>
        RunServerAsync(new Dictionary<string, string?> { [variable] = value });

    private static async Task<(int ExitCode, string Text)> RunServerAsync(IReadOnlyDictionary<string, string?> settings)
    {
        var start = new ProcessStartInfo("dotnet", [Path.Combine(AppContext.BaseDirectory, "SigningServer.dll"), "--urls", "http://127.0.0.1:0"])
        {
            WorkingDirectory = AppContext.BaseDirectory,
        };
        start.Environment["ASPNETCORE_ENVIRONMENT"] = "Production";
        start.Environment["Signing__Key"] = TestKey.Base64;
        foreach (var (variable, value) in settings)
        {
            if (value is null)
            {
                start.Environment.Remove(variable);
            }
            else
            {
                start.Environment[variable] = value;
            }
        }

        var (exitCode, stdout, stderr) = await ProcessToExit.RunAsync(start);
        return (exitCode, stdout + stderr);
    }
}
