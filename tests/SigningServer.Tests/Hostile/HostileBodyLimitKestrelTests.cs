using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary><see cref="HostileBodyLimitCases"/> on real Kestrel over loopback with a 4 KiB limit.</summary>
public sealed class HostileBodyLimitKestrelTests(KestrelSigningServerFactory factory)
    : HostileBodyLimitCases(factory, KestrelSigningServerFactory.Limit, chunkFramingCounts: true, closesPastLimit: true), IClassFixture<KestrelSigningServerFactory>;
