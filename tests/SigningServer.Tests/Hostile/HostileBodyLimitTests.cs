using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Hostile;

/// <summary><see cref="HostileBodyLimitCases"/> on the in-memory host with a 4 KiB limit.</summary>
public sealed class HostileBodyLimitTests(SmallBodyLimitFactory factory)
    : HostileBodyLimitCases(factory, SmallBodyLimitFactory.Limit, chunkFramingCounts: false, closesPastLimit: false), IClassFixture<SmallBodyLimitFactory>;
