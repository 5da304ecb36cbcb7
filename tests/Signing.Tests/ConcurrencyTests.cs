using Signing;
using Signing.Generation;

namespace Signing.Tests;

/// <summary>
/// Strategies are shared by every request, so concurrent signs must give exactly what sequential signs give: no
/// shared buffer, hash or writer may leak between calls.
/// </summary>
public sealed class ConcurrencyTests
{
    private const int Workers = 8;
    private const int Envelopes = 240;

    public static TheoryData<string> StrategyNames() => [.. TestData.CreateStrategies().Names];

    [Theory]
    [MemberData(nameof(StrategyNames))]
    public void Parallel_signs_equal_sequential_signs(string name)
    {
        var strategy = TestData.CreateStrategies()[name];
        var envelopes = Enumerable.Range(0, Envelopes)
            // At least one widget each: every empty envelope is the same envelope.
            .Select(i => EnvelopeGenerator.Create(1 + (i % 23), seed: 1000 + i, i % 2 == 0 ? GeneratedText.Plain : GeneratedText.Awkward))
            .ToArray();
        var sequential = envelopes.Select(strategy.Sign).ToArray();
        Assert.Equal(Envelopes, sequential.Distinct().Count());

        // Dedicated threads rather than the thread pool, so there really are eight signs in flight on a two-core
        // machine; the barrier starts them together, and each walks the envelopes from a different place.
        var results = new SignResult[Workers][];
        var errors = new List<Exception>();
        using var start = new Barrier(Workers);
        var threads = Enumerable.Range(0, Workers).Select(worker => new Thread(() =>
        {
            try
            {
                var mine = new SignResult[Envelopes];
                start.SignalAndWait();
                for (var k = 0; k < Envelopes; k++)
                {
                    var i = (k + (worker * Envelopes / Workers)) % Envelopes;
                    mine[i] = strategy.Sign(envelopes[i]);
                }

                results[worker] = mine;
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                lock (errors)
                {
                    errors.Add(e);
                }
            }
        })).ToList();

        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        Assert.Empty(errors);
        Assert.All(results, mine => Assert.Equal(sequential, mine));
    }

    [Fact]
    public void Parallel_For_over_all_strategies_agrees_with_sequential_signs()
    {
        var strategies = TestData.CreateStrategies();
        var envelopes = Enumerable.Range(0, 300).Select(i => EnvelopeGenerator.Create(1 + (i % 11), seed: i, GeneratedText.Awkward)).ToArray();
        var expected = envelopes.Select(strategies[strategies.Names[0]].Sign).ToArray();
        var jobs = (from name in strategies.Names from i in Enumerable.Range(0, envelopes.Length) select (name, i)).ToArray();
        var actual = new SignResult[jobs.Length];

        Parallel.For(0, jobs.Length, new ParallelOptions { MaxDegreeOfParallelism = Workers }, j => actual[j] = strategies[jobs[j].name].Sign(envelopes[jobs[j].i]));

        for (var j = 0; j < jobs.Length; j++)
        {
            Assert.True(expected[jobs[j].i] == actual[j], $"'{jobs[j].name}' differed on envelope {jobs[j].i} when run in parallel.");
        }
    }
}
