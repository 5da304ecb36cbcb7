using System.Diagnostics;
using Signing.Http.Memory;

namespace SigningServer.Tests.Memory;

/// <summary>
/// <see cref="InFlightBudget"/> and its <see cref="InFlightCharge"/>s without a server: whole KiB permits, a charge of
/// exactly what is left fits and one byte more does not, a refused raise keeps what was charged before, a charge
/// gives everything back when it ends, raising allocates nothing, and charges raised from many threads at once never
/// take more than the budget.
/// </summary>
public sealed class InFlightBudgetTests
{
    private const int KiB = InFlightBudget.BytesPerPermit;

    [Theory]
    [InlineData(KiB - 1, false)]
    [InlineData(KiB, true)]
    public void A_budget_holds_at_least_one_permit(long limitBytes, bool valid)
    {
        if (valid)
        {
            var budget = new InFlightBudget(limitBytes);
            Assert.Equal(limitBytes, budget.LimitBytes);
        }
        else
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => new InFlightBudget(limitBytes));
        }
    }

    [Theory]
    [InlineData(2 * KiB - 1, KiB)]
    [InlineData(2 * KiB, 2 * KiB)]
    [InlineData(2 * KiB + 1, 2 * KiB)]
    public void The_limit_is_whole_permits_rounded_down(long limitBytes, long expected)
    {
        var budget = new InFlightBudget(limitBytes);

        Assert.Equal(expected, budget.LimitBytes);
        Assert.Equal(0, budget.InUseBytes);
    }

    [Theory]
    [InlineData(1, KiB)]
    [InlineData(KiB, KiB)]
    [InlineData(KiB + 1, 2 * KiB)]
    public void A_charge_takes_whole_permits_rounded_up(long bytes, long inUse)
    {
        var budget = new InFlightBudget(4 * KiB);
        using var charge = budget.Open();

        Assert.True(charge.TryRaiseTo(bytes));

        Assert.Equal(bytes, charge.Bytes);
        Assert.Equal(inUse, budget.InUseBytes);
    }

    [Fact]
    public void A_charge_of_exactly_what_is_left_fits_and_one_byte_more_does_not()
    {
        var budget = new InFlightBudget(4 * KiB);
        using var first = budget.Open();
        using var second = budget.Open();
        Assert.True(first.TryRaiseTo(KiB));

        Assert.False(second.TryRaiseTo((3 * KiB) + 1));
        Assert.Equal(1, budget.Refused);
        Assert.True(second.TryRaiseTo(3 * KiB));

        Assert.Equal(4 * KiB, budget.InUseBytes);
        Assert.Equal(1, budget.Refused);
    }

    [Theory]
    [InlineData(4 * KiB, true)]
    [InlineData((4 * KiB) + 1, false)]
    [InlineData(long.MaxValue / 2, false)]
    public void One_charge_may_take_the_whole_budget_and_no_more(long bytes, bool fits)
    {
        var budget = new InFlightBudget(4 * KiB);
        using var charge = budget.Open();

        Assert.Equal(fits, charge.TryRaiseTo(bytes));

        Assert.Equal(fits ? bytes : 0, charge.Bytes);
        Assert.Equal(fits ? 4 * KiB : 0, budget.InUseBytes);
        Assert.Equal(fits ? 0 : 1, budget.Refused);
    }

    [Fact]
    public void Raising_takes_only_the_difference_and_lowering_changes_nothing()
    {
        var budget = new InFlightBudget(4 * KiB);
        using var charge = budget.Open();

        Assert.True(charge.TryRaiseTo(2 * KiB));
        Assert.True(charge.TryRaiseTo(3 * KiB));
        Assert.Equal(3 * KiB, budget.InUseBytes);

        Assert.True(charge.TryRaiseTo(3 * KiB));
        Assert.True(charge.TryRaiseTo(KiB));
        Assert.Equal(3 * KiB, charge.Bytes);
        Assert.Equal(3 * KiB, budget.InUseBytes);
        Assert.Equal(0, budget.Refused);
    }

    [Fact]
    public void Raising_a_charge_that_holds_the_whole_budget_to_what_it_holds_succeeds()
    {
        var budget = new InFlightBudget(4 * KiB);
        using var charge = budget.Open();
        Assert.True(charge.TryRaiseTo(4 * KiB));

        Assert.True(charge.TryRaiseTo(4 * KiB));

        Assert.Equal(0, budget.Refused);
    }

    [Fact]
    public void A_budget_of_more_permits_than_it_counts_is_refused_not_wrapped()
    {
        Assert.Throws<OverflowException>(() => new InFlightBudget(((long)int.MaxValue + 1) * KiB));
    }

    [Fact]
    public void A_refused_raise_keeps_what_was_charged_before()
    {
        var budget = new InFlightBudget(4 * KiB);
        using var charge = budget.Open();
        Assert.True(charge.TryRaiseTo(3 * KiB));

        Assert.False(charge.TryRaiseTo(5 * KiB));

        Assert.Equal(3 * KiB, charge.Bytes);
        Assert.Equal(3 * KiB, budget.InUseBytes);
    }

    [Fact]
    public void An_ended_charge_gives_everything_back_and_can_be_charged_again()
    {
        var budget = new InFlightBudget(4 * KiB);
        var charge = budget.Open();
        Assert.True(charge.TryRaiseTo(KiB));
        Assert.True(charge.TryRaiseTo(4 * KiB));

        charge.Dispose();

        Assert.Equal(0, charge.Bytes);
        Assert.Equal(0, budget.InUseBytes);
        Assert.True(charge.TryRaiseTo(4 * KiB));
        Assert.Equal(4 * KiB, budget.InUseBytes);
        charge.Dispose();
        charge.Dispose();
        Assert.Equal(0, budget.InUseBytes);
    }

    [Fact]
    public void Raises_in_steps_of_part_of_a_permit_take_what_one_raise_would()
    {
        var budget = new InFlightBudget(4 * KiB);
        using var charge = budget.Open();

        for (var bytes = 100L; bytes <= 3 * KiB; bytes += 100)
        {
            Assert.True(charge.TryRaiseTo(bytes));
        }

        Assert.Equal(3 * KiB, budget.InUseBytes);
        Assert.True(charge.TryRaiseTo((3 * KiB) + 1));
        Assert.Equal(4 * KiB, budget.InUseBytes);
        Assert.False(charge.TryRaiseTo((4 * KiB) + 1));
        Assert.Equal(1, budget.Refused);
    }

    [Fact]
    public void Raising_a_charge_allocates_nothing_however_often()
    {
        // A request raises its charge at every read of its body: some 1,300 times for a 22 MB body in 16 KiB blocks.
        var budget = new InFlightBudget(1024 * KiB);
        using var charge = budget.Open();
        Assert.True(charge.TryRaiseTo(1));

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var bytes = 2L; bytes <= 1024 * KiB; bytes += 1000)
        {
            Assert.True(charge.TryRaiseTo(bytes));
        }

        charge.Dispose();
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(0, budget.InUseBytes);
    }

    [Fact]
    public void Charges_raised_from_many_threads_at_once_never_take_more_than_the_budget()
    {
        // Each thread's charge wants up to 12 permits, so any two at once are more than the budget's 16.
        const int Permits = 16;
        var budget = new InFlightBudget(Permits * KiB);
        var granted = 0;
        var most = 0;
        using var start = new Barrier(4);
        var clock = Stopwatch.StartNew();
        var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() =>
        {
            start.SignalAndWait();

            // On until two charges have met at least once (a refusal): on a busy machine the threads may run one after
            // another for a while.
            for (var i = 0; i < 50_000 || (budget.Refused == 0 && clock.Elapsed < TimeSpan.FromSeconds(30)); i++)
            {
                using var charge = budget.Open();
                for (var step = 1; step <= 4 && charge.TryRaiseTo(step * 3 * KiB); step++)
                {
                    InterlockedMax(ref most, Interlocked.Add(ref granted, 3));
                }

                // Counted back before the charge gives its permits back, so granted never counts more than is taken.
                Interlocked.Add(ref granted, -(int)(charge.Bytes / KiB));
            }
        })).ToList();

        threads.ForEach(thread => thread.Start());
        threads.ForEach(thread => thread.Join());

        Assert.InRange(most, 12, Permits);
        Assert.True(budget.Refused > 0);
        Assert.Equal(0, budget.InUseBytes);
    }

    private static void InterlockedMax(ref int target, int value)
    {
        var seen = Volatile.Read(ref target);
        while (value > seen)
        {
            var before = Interlocked.CompareExchange(ref target, value, seen);
            if (before == seen)
            {
                return;
            }

            seen = before;
        }
    }
}
