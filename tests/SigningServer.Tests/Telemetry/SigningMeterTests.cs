using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Net;
using Microsoft.Extensions.DependencyInjection;
using Signing.Http;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Telemetry;

/// <summary>
/// The <c>Signing</c> meter publishes what the headers and the stats report, so tools that listen to meters need no
/// code of their own. Listens only to this host's meter: other test hosts in the process have meters of the same name.
/// </summary>
public sealed class SigningMeterTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    [Fact]
    public async Task A_sign_records_its_duration_and_each_phases_allocation_tagged_with_the_strategy()
    {
        using var client = factory.CreateClient();
        using var recorder = new Recorder(factory.Services.GetRequiredService<IMeterFactory>());
        var strategy = factory.StrategyNames[0];

        using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(Bodies.Canonical(widgetCount: 7, seed: 3)));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var duration = Assert.Single(recorder.Of(SigningTelemetry.RequestDurationName));
        Assert.Equal(strategy, duration.Tags[SigningTelemetry.StrategyTag]);
        Assert.Equal("success", duration.Tags[SigningTelemetry.OutcomeTag]);
        Assert.True(duration.Value > 0);

        var allocations = recorder.Of(SigningTelemetry.PhaseAllocatedName).ToDictionary(m => (string)m.Tags[SigningTelemetry.PhaseTag]!);
        Assert.Equal(["parse", "sign"], allocations.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes), (long)allocations["parse"].Value);
        Assert.Equal(CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes), (long)allocations["sign"].Value);
        Assert.All(allocations.Values, m => Assert.Equal(strategy, m.Tags[SigningTelemetry.StrategyTag]));

        Assert.Equal(["parse", "read", "sign"], recorder.Of(SigningTelemetry.PhaseDurationName).Select(m => (string)m.Tags[SigningTelemetry.PhaseTag]!).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_sign_records_its_whole_allocation_and_its_body_size_tagged_with_strategy_and_outcome_only()
    {
        using var client = factory.CreateClient();
        using var recorder = new Recorder(factory.Services.GetRequiredService<IMeterFactory>());
        var strategy = factory.Strategies.Names[^1];
        var body = Bodies.Canonical(widgetCount: 9, seed: 5);

        using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(body));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var allocated = Assert.Single(recorder.Of(SigningTelemetry.RequestAllocatedName));
        Assert.Equal(CostHeaders.Bytes(response, SignCostHeaders.ParseAllocatedBytes) + CostHeaders.Bytes(response, SignCostHeaders.SignAllocatedBytes), (long)allocated.Value);
        var size = Assert.Single(recorder.Of(SigningTelemetry.RequestBodySizeName));
        Assert.Equal(body.Length, size.Value);
        foreach (var measurement in new[] { allocated, size })
        {
            Assert.Equal(2, measurement.Tags.Count);
            Assert.Equal(strategy, measurement.Tags[SigningTelemetry.StrategyTag]);
            Assert.Equal("success", measurement.Tags[SigningTelemetry.OutcomeTag]);
        }
    }

    [Fact]
    public async Task A_failed_request_is_recorded_as_a_failure_of_its_strategy()
    {
        using var client = factory.CreateClient();
        using var recorder = new Recorder(factory.Services.GetRequiredService<IMeterFactory>());

        using var response = await client.PostAsync("/api/sign?strategy=MemoryStream", Bodies.Json("{\"widgets\":[{]}"));

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var duration = Assert.Single(recorder.Of(SigningTelemetry.RequestDurationName));
        Assert.Equal("memorystream", duration.Tags[SigningTelemetry.StrategyTag]);
        Assert.Equal("failure", duration.Tags[SigningTelemetry.OutcomeTag]);
        Assert.DoesNotContain(recorder.Of(SigningTelemetry.PhaseAllocatedName), m => (string?)m.Tags[SigningTelemetry.PhaseTag] == "sign");
        Assert.Equal("failure", Assert.Single(recorder.Of(SigningTelemetry.RequestAllocatedName)).Tags[SigningTelemetry.OutcomeTag]);
        Assert.Equal("failure", Assert.Single(recorder.Of(SigningTelemetry.RequestBodySizeName)).Tags[SigningTelemetry.OutcomeTag]);
    }

    [Fact]
    public async Task Pool_gauges_and_events_report_what_the_stream_pool_saw()
    {
        using var client = factory.CreateClient();
        using var recorder = new Recorder(factory.Services.GetRequiredService<IMeterFactory>());
        using var response = await client.PostAsync("/api/sign?strategy=recyclable", Bodies.Json(Bodies.Canonical(widgetCount: 300, seed: 4)));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);

        recorder.Observe();

        Assert.All(recorder.Of(SigningTelemetry.PoolInUseName), m => Assert.Equal(0, m.Value));
        Assert.Equal(["large", "small"], recorder.Of(SigningTelemetry.PoolInUseName).Select(m => (string)m.Tags[SigningTelemetry.PoolTag]!).Order());
        var limits = recorder.Of(SigningTelemetry.PoolFreeLimitName).ToDictionary(m => (string)m.Tags[SigningTelemetry.PoolTag]!, m => m.Value);
        Assert.Equal(factory.Pool.Options.MaximumSmallPoolFreeBytes, limits["small"]);
        Assert.Equal(factory.Pool.Options.MaximumLargePoolFreeBytes, limits["large"]);
        // The body and the document took blocks, which are free again now.
        var free = recorder.Of(SigningTelemetry.PoolFreeName).Single(m => (string?)m.Tags[SigningTelemetry.PoolTag] == "small");
        Assert.True(free.Value >= factory.Pool.Options.BlockSize, $"{free.Value} bytes free");
        var events = recorder.Of(SigningTelemetry.PoolEventsName).ToDictionary(m => (string)m.Tags[SigningTelemetry.PoolEventTag]!, m => m.Value);
        Assert.Equal(factory.Pool.BlocksCreated, events["block_created"]);
        Assert.True(events["block_created"] > 0);
        Assert.Equal(0, events["stream_double_disposed"]);
        Assert.Equal(0, events["stream_finalized"]);
    }

    private sealed record Measurement(string Instrument, double Value, IReadOnlyDictionary<string, object?> Tags);

    /// <summary>Collects every measurement of the <c>Signing</c> meter made by one host's meter factory.</summary>
    private sealed class Recorder : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly ConcurrentQueue<Measurement> _measurements = new();

        public Recorder(IMeterFactory scope)
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == SigningTelemetry.MeterName && ReferenceEquals(instrument.Meter.Scope, scope))
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<double>((i, value, tags, _) => Add(i, value, tags));
            _listener.SetMeasurementEventCallback<long>((i, value, tags, _) => Add(i, value, tags));
            _listener.Start();
        }

        public IEnumerable<Measurement> Of(string instrument) => _measurements.Where(m => m.Instrument == instrument);

        public void Observe() => _listener.RecordObservableInstruments();

        public void Dispose() => _listener.Dispose();

        private void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var copy = new Dictionary<string, object?>();
            foreach (var tag in tags)
            {
                copy[tag.Key] = tag.Value;
            }

            _measurements.Enqueue(new Measurement(instrument.Name, value, copy));
        }
    }
}
