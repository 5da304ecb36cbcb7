using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.Hosting;

namespace SigningServer.Tests.Hosts;

/// <summary>The <see cref="IHostEnvironment"/> that <c>AddSigning()</c>'s validator needs, without a host.</summary>
internal sealed class TestHostEnvironment(string environmentName) : IHostEnvironment
{
    public string EnvironmentName { get; set; } = environmentName;

    public string ApplicationName { get; set; } = "SigningServer.Tests";

    public string ContentRootPath { get; set; } = AppContext.BaseDirectory;

    public IFileProvider ContentRootFileProvider { get; set; } = new NullFileProvider();
}
