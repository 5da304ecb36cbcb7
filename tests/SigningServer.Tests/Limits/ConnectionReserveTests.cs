using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;
using Signing.Http;
using Signing.Http.Memory;

namespace SigningServer.Tests.Limits;

/// <summary>
/// What connections may hold before the endpoint reads them is set aside from the in-flight budget, and the connection
/// cap keeps it to a share of the process's memory: the figures worked out by hand from the settings' documentation.
/// </summary>
public sealed class ConnectionReserveTests
{
    private const long MiB = 1024 * 1024;

    [Theory]
    // 20% of the memory at 41 KiB a connection, from 1,024 to 8,192.
    [InlineData(64 * MiB, 1024)]
    [InlineData(512 * MiB, 2557)]
    [InlineData(1024 * MiB, 5115)]
    [InlineData(1250 * MiB, 6243)]
    [InlineData(2048 * MiB, 8192)]
    [InlineData(24 * 1024 * MiB, 8192)]
    public void The_connection_cap_holds_what_a_share_of_memory_holds(long availableBytes, long connections) =>
        Assert.Equal(connections, SigningKestrelLimits.ConnectionsFor(availableBytes));

    [Fact]
    public void The_reserve_counts_the_transports_buffer_and_block_and_the_request_buffer_of_every_connection()
    {
        // SigningServer's limits: 8,192 connections of 17 KiB read ahead, a 16 KiB receive block and 8 KiB.
        Assert.Equal(328 * MiB, InFlightBudgetSizing.KestrelReserveBytes(8192, 8 * 1024, 17 * 1024));

        // Kestrel's buffers at their defaults with no cap (the Functions worker's, before AddSigning sets the
        // transport's): 100 connections of 1 MiB, 1 MiB and a 16 KiB block.
        Assert.Equal((200 * MiB) + (100 * 16 * 1024), InFlightBudgetSizing.KestrelReserveBytes(null, null, null));
    }

    [Theory]
    [InlineData(512 * MiB)]
    [InlineData(1024 * MiB)]
    [InlineData(4096 * MiB)]
    public void On_a_small_or_large_heap_connections_keep_at_most_their_share_and_the_budget_the_rest(long availableBytes)
    {
        var connections = SigningKestrelLimits.ConnectionsFor(availableBytes);
        var reserve = InFlightBudgetSizing.KestrelReserveBytes(connections, SigningKestrelLimits.MaxRequestBufferSize, SigningKestrelLimits.MaxReadBufferSize);
        var budget = InFlightBudgetSizing.DefaultLimitBytes(availableBytes, connections, SigningKestrelLimits.MaxRequestBufferSize, SigningKestrelLimits.MaxReadBufferSize);

        Assert.InRange(reserve, 1, availableBytes * 20 / 100);
        Assert.InRange(budget, availableBytes * 20 / 100, availableBytes * 40 / 100);
        Assert.Equal((availableBytes * 2 / 5) - reserve, budget, tolerance: 1);
    }

    [Theory]
    [InlineData(0, true)]
    [InlineData(1, false)]
    public void A_default_budget_of_1_MiB_is_kept_and_one_byte_less_refused_naming_the_setting(long overReserve, bool kept)
    {
        // Create reads the runtime's memory figure, as this test does (it does not change while the process runs). One
        // connection whose request buffer takes the default's whole share but 1 MiB, less the transport's read-ahead and
        // the receive block, leaves a budget of exactly 1 MiB; a byte more leaves less.
        var available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        var share = InFlightBudgetSizing.DefaultLimitBytes(available, 0, null, null);
        var sockets = new SocketTransportOptions { MaxReadBufferSize = 64 * 1024 };
        var reserve = share - MiB + overReserve;
        var kestrel = new KestrelServerLimits
        {
            MaxConcurrentConnections = 1,
            MaxRequestBufferSize = reserve - (64 * 1024) - ReceiveBlockPool.BlockSize,
        };

        if (kept)
        {
            Assert.Equal(MiB, InFlightBudgetSizing.Create(new SigningOptions(), kestrel, sockets).LimitBytes);
            return;
        }

        var refused = Assert.Throws<OptionsValidationException>(() => InFlightBudgetSizing.Create(new SigningOptions(), kestrel, sockets));
        Assert.Equal(
            $"Signing:MaxInFlightBytes is not set, and its default, 40% of the {available / MiB} MiB this process may use less {reserve / MiB} MiB " +
            "that Kestrel may hold for connections, is below 1 MiB. Give the process more memory, or set it.",
            Assert.Single(refused.Failures));
    }

    [Fact]
    public void Missing_settings_are_refused_by_name()
    {
        Assert.Equal("limits", Assert.Throws<ArgumentNullException>(() => SigningKestrelLimits.ApplyClientFacing(null!)).ParamName);
        Assert.Equal("limits", Assert.Throws<ArgumentNullException>(() => SigningKestrelLimits.ApplyBodyLimit(null!, MiB)).ParamName);
        Assert.Equal("limits", Assert.Throws<ArgumentNullException>(() => SigningKestrelLimits.ApplyBehindFunctionsHost(null!)).ParamName);
        Assert.Equal("sockets", Assert.Throws<ArgumentNullException>(() => SigningKestrelLimits.ApplyReadBuffer(null!)).ParamName);
        var limits = new KestrelServerLimits();
        var sockets = new SocketTransportOptions();
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => InFlightBudgetSizing.Create(null!, limits, sockets)).ParamName);
        Assert.Equal("kestrel", Assert.Throws<ArgumentNullException>(() => InFlightBudgetSizing.Create(new SigningOptions(), null!, sockets)).ParamName);
        Assert.Equal("sockets", Assert.Throws<ArgumentNullException>(() => InFlightBudgetSizing.Create(new SigningOptions(), limits, null!)).ParamName);
    }
}
