using Microsoft.Extensions.Configuration;
using Signing.Http.Stats;

namespace SigningServer.Tests.Stats;

/// <summary>Which instance a process says it is: the platform's id where the platform sets one, else the machine.</summary>
public sealed class InstanceStatsTests
{
    [Theory]
    [InlineData("app-service-instance", null, "app-service-instance")]
    [InlineData(null, "flex-container", "flex-container")]
    [InlineData("app-service-instance", "flex-container", "app-service-instance")]
    [InlineData(" ", "flex-container", "flex-container")]
    public void The_platform_instance_id_names_the_instance(string? websiteInstanceId, string? containerName, string expected)
    {
        var instance = InstanceStats.Describe(Configuration(websiteInstanceId, containerName));

        Assert.Equal(expected, instance.Id);
    }

    [Fact]
    public void Without_a_platform_id_the_machine_names_the_instance()
    {
        Assert.Equal(Environment.MachineName, InstanceStats.Describe(Configuration(null, null)).Id);
    }

    [Fact]
    public void The_process_is_this_one_and_started_before_now()
    {
        var instance = InstanceStats.Describe(Configuration(null, null));

        Assert.Equal(Environment.ProcessId, instance.ProcessId);
        Assert.InRange(instance.ProcessStartTime, DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow);
        Assert.Equal(TimeSpan.Zero, instance.ProcessStartTime.Offset);
    }

    private static IConfiguration Configuration(string? websiteInstanceId, string? containerName) =>
        new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["WEBSITE_INSTANCE_ID"] = websiteInstanceId,
            ["CONTAINER_NAME"] = containerName,
        }).Build();
}
