using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Time.Testing;
using Signing.Http.Memory;
using Signing.Http.Requests;
using SigningServer.Tests.Clients;

namespace SigningServer.Tests.Reading;

/// <summary>
/// <see cref="GuardedBodyReader"/> over a pipe that stands for the host's body reader, on a fake clock: a server slow to
/// come back for bytes the client has sent does not cut the client off, however slow; a late beat is not the client's
/// silence; a silent client is cut off with 408 and the host's reader is left advanced, as Kestrel needs it to drain or
/// close without "Reading is already in progress", and a body refused mid-read is handed back to it once; only a wait
/// for bytes that do not come is counted (a failed read keeps the silence, bytes start it again, a reader with no clock
/// just waits); and the limit and the charge follow the bytes seen, for TryRead too, the budget asked only as they grow.
/// </summary>
public sealed class GuardedBodyReaderTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    [Fact]
    public async Task A_client_that_sent_everything_is_not_cut_off_while_the_server_is_slow_to_read_it()
    {
        var time = new FakeTimeProvider();
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0));
        var body = Bodies.Padded(64 * 1024);
        await pipe.Writer.WriteAsync(body);
        await pipe.Writer.CompleteAsync();
        using var clock = new BodyStallClock(time, Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, body.Length, admit: null, clock, decoding: null, progress: clock);

        // A slow consumer: a KiB at a time, and ten timeouts of other work between reads.
        long read = 0;
        while (true)
        {
            var result = await reader.ReadAsync();
            var taken = Math.Min(1024, result.Buffer.Length);
            read += taken;
            reader.AdvanceTo(result.Buffer.GetPosition(taken));
            if (result.IsCompleted && taken == result.Buffer.Length)
            {
                break;
            }

            time.Advance(Timeout * 10);
        }

        Assert.Equal(body.Length, read);
        Assert.False(clock.Stalled);
    }

    [Fact]
    public async Task A_starved_server_whose_beats_come_late_does_not_cut_off_the_client()
    {
        var time = new FakeTimeProvider();
        var pipe = new Pipe();
        using var clock = new BodyStallClock(time, Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 1024, admit: null, clock, decoding: null, progress: clock);

        var pending = reader.ReadAsync();
        Assert.False(pending.IsCompleted);
        time.AdjustTime(time.GetUtcNow() + (Timeout * 10));
        time.Advance(clock.Beat);
        await pipe.Writer.WriteAsync(new byte[] { 1, 2, 3 });

        var result = await pending;
        Assert.Equal(3, result.Buffer.Length);
        Assert.False(clock.Stalled);
    }

    [Fact]
    public async Task A_silent_client_is_cut_off_with_408_and_the_hosts_reader_is_left_advanced()
    {
        var time = new FakeTimeProvider();
        var pipe = new Pipe();
        var host = new KestrelStyleBodyReader(pipe.Reader);
        using var clock = new BodyStallClock(time, Timeout, host.CancelPendingRead);
        var reader = new GuardedBodyReader(host, ownsInner: false, 1024, admit: null, clock, decoding: null, progress: clock);
        await pipe.Writer.WriteAsync(new byte[] { 1, 2, 3 });
        var first = await reader.ReadAsync();
        reader.AdvanceTo(first.Buffer.End);

        var pending = reader.ReadAsync();
        time.BeatOnTime(clock, 4);

        var stalled = await Assert.ThrowsAsync<BodyStalledException>(async () => await pending);
        Assert.Equal(StatusCodes.Status408RequestTimeout, stalled.StatusCode);

        // The host's reader takes another read: it was advanced, not left mid-read.
        await pipe.Writer.WriteAsync(new byte[] { 4 });
        Assert.True(host.TryRead(out var after));
        Assert.Equal(1, after.Buffer.Length);
    }

    [Fact]
    public async Task A_read_that_fails_stops_the_clock_and_keeps_the_silence_counted_so_far()
    {
        var time = new FakeTimeProvider();
        var pipe = new Pipe();
        using var clock = new BodyStallClock(time, Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 1024, admit: null, clock, decoding: null, progress: clock);
        using var cancelled = new CancellationTokenSource();

        var failing = reader.ReadAsync(cancelled.Token);
        time.BeatOnTime(clock, 3);
        await cancelled.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await failing);

        // No read waits now: however long the server takes to read again, that time is not the client's.
        time.Advance(Timeout * 10);
        Assert.False(clock.Stalled);

        // But the failed read brought nothing: the silence before it still counts, and one beat more ends it.
        var pending = reader.ReadAsync();
        time.Advance(clock.Beat);
        Assert.True(clock.Stalled);
        var stalled = await Assert.ThrowsAsync<BodyStalledException>(async () => await pending);
        Assert.Equal(StatusCodes.Status408RequestTimeout, stalled.StatusCode);
    }

    [Fact]
    public async Task Sixteen_KiB_that_arrive_after_a_wait_start_the_silence_again_and_the_time_between_reads_is_not_counted()
    {
        var time = new FakeTimeProvider();
        var pipe = new Pipe();
        using var clock = new BodyStallClock(time, Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 1024 * 1024, admit: null, clock, decoding: null, progress: clock);

        // Three quarters of the timeout silent, then 16 KiB.
        var first = reader.ReadAsync();
        time.BeatOnTime(clock, 3);
        await pipe.Writer.WriteAsync(new byte[BodyStallClock.ProgressBytes]);
        reader.AdvanceTo((await first).Buffer.End);

        // The server is slow to come back for more: its time, not the client's.
        time.Advance(Timeout * 10);
        Assert.False(clock.Stalled);

        // The next wait counts from zero: three quarters of the timeout again is not a stall.
        var second = reader.ReadAsync();
        time.BeatOnTime(clock, 3);
        Assert.False(clock.Stalled);
        await pipe.Writer.WriteAsync(new byte[] { 2 });
        Assert.Equal(1, (await second).Buffer.Length);
    }

    [Fact]
    public async Task A_byte_now_and_then_does_not_keep_a_body_from_stalling_but_bytes_read_at_once_count()
    {
        var time = new FakeTimeProvider();
        var pipe = new Pipe();
        using var clock = new BodyStallClock(time, Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 1024 * 1024, admit: null, clock, decoding: null, progress: clock);

        // A byte after every three beats of silence: the silence goes on counting, and the fourth beat ends the body.
        var first = reader.ReadAsync();
        time.BeatOnTime(clock, 3);
        await pipe.Writer.WriteAsync(new byte[] { 1 });
        reader.AdvanceTo((await first).Buffer.End);
        var second = reader.ReadAsync();
        time.BeatOnTime(clock, 1);
        await Assert.ThrowsAsync<BodyStalledException>(async () => await second);

        // Bytes already buffered when the read comes (no wait at all) are progress too.
        var otherPipe = new Pipe();
        using var other = new BodyStallClock(time, Timeout, otherPipe.Reader.CancelPendingRead);
        var otherReader = new GuardedBodyReader(otherPipe.Reader, ownsInner: false, 1024 * 1024, admit: null, other, decoding: null, progress: other);
        var waited = otherReader.ReadAsync();
        time.BeatOnTime(other, 3);
        await otherPipe.Writer.WriteAsync(new byte[] { 1 });
        otherReader.AdvanceTo((await waited).Buffer.End);
        await otherPipe.Writer.WriteAsync(new byte[BodyStallClock.ProgressBytes]);
        var atOnce = otherReader.ReadAsync();
        Assert.True(atOnce.IsCompleted);
        otherReader.AdvanceTo((await atOnce).Buffer.End);
        var third = otherReader.ReadAsync();
        time.BeatOnTime(other, 3);
        Assert.False(other.Stalled);
        await otherPipe.Writer.WriteAsync(new byte[] { 2 });
        Assert.Equal(1, (await third).Buffer.Length);
    }

    [Fact]
    public async Task A_read_without_a_clock_waits_for_its_bytes()
    {
        // The decompressed side of a compressed body has no clock of its own: the host's side below it times the client.
        var pipe = new Pipe();
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: true, 1024, admit: null, clock: null, decoding: null);

        var pending = reader.ReadAsync();
        await pipe.Writer.WriteAsync(new byte[] { 1, 2, 3 });

        Assert.Equal(3, (await pending).Buffer.Length);
    }

    [Fact]
    public async Task A_body_refused_mid_read_is_handed_back_once_and_the_host_can_still_drain_it()
    {
        var pipe = new Pipe();
        var host = new KestrelStyleBodyReader(pipe.Reader);
        using var clock = new BodyStallClock(new FakeTimeProvider(), Timeout, host.CancelPendingRead);
        var reader = new GuardedBodyReader(host, ownsInner: false, 10, admit: null, clock, decoding: null, progress: clock);
        await pipe.Writer.WriteAsync(new byte[11]);
        var tooLarge = await Assert.ThrowsAsync<BadHttpRequestException>(async () => await reader.ReadAsync());
        Assert.Equal(StatusCodes.Status413PayloadTooLarge, tooLarge.StatusCode);

        // The request ends after its 413: completing the reader must not advance the host's reader a second time, which
        // Kestrel refuses, and the host then drains the whole body.
        await reader.CompleteAsync();

        Assert.True(host.TryRead(out var drained));
        Assert.Equal(11, drained.Buffer.Length);
    }

    [Fact]
    public async Task TryRead_holds_the_body_to_the_same_limit_and_charge_as_ReadAsync()
    {
        var pipe = new Pipe();
        var asked = new List<long>();
        using var clock = new BodyStallClock(new FakeTimeProvider(), Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 10, bytes => { asked.Add(bytes); return true; }, clock, decoding: null);

        Assert.False(reader.TryRead(out _));
        await pipe.Writer.WriteAsync(new byte[4]);
        Assert.True(reader.TryRead(out var result));
        Assert.Equal(4, result.Buffer.Length);
        reader.AdvanceTo(result.Buffer.End);
        await pipe.Writer.WriteAsync(new byte[7]);

        // A consumer that polls rather than awaits still meets the 413 past the limit.
        var tooLarge = Assert.Throws<BadHttpRequestException>(() => reader.TryRead(out _));
        Assert.Equal(StatusCodes.Status413PayloadTooLarge, tooLarge.StatusCode);
        Assert.Equal([4L], asked);
    }

    [Fact]
    public async Task A_read_that_brings_no_new_bytes_does_not_ask_the_budget_again()
    {
        var pipe = new Pipe();
        var asked = new List<long>();
        using var clock = new BodyStallClock(new FakeTimeProvider(), Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 10, bytes => { asked.Add(bytes); return true; }, clock, decoding: null);
        await pipe.Writer.WriteAsync(new byte[4]);

        // A consumer that took nothing reads the same four bytes again: nothing new to charge for.
        var result = await reader.ReadAsync();
        reader.AdvanceTo(result.Buffer.Start);
        result = await reader.ReadAsync();

        Assert.Equal(4, result.Buffer.Length);
        Assert.Equal([4L], asked);
    }

    [Fact]
    public async Task Completing_in_the_middle_of_a_read_hands_the_read_back_to_the_hosts_reader()
    {
        var pipe = new Pipe();
        using var clock = new BodyStallClock(new FakeTimeProvider(), Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 1024, admit: null, clock, decoding: null, progress: clock);
        await pipe.Writer.WriteAsync(new byte[] { 1, 2, 3 });
        _ = await reader.ReadAsync();

        // A consumer that failed before it advanced: the host must still be able to drain what is left.
        await reader.CompleteAsync();

        Assert.True(pipe.Reader.TryRead(out var drained));
        Assert.Equal(3, drained.Buffer.Length);
    }

    [Fact]
    public async Task The_limit_and_the_charge_follow_the_bytes_seen()
    {
        var pipe = new Pipe();
        var asked = new List<long>();
        using var clock = new BodyStallClock(new FakeTimeProvider(), Timeout, pipe.Reader.CancelPendingRead);
        var reader = new GuardedBodyReader(pipe.Reader, ownsInner: false, 10, bytes => { asked.Add(bytes); return bytes <= 6; }, clock, decoding: null);

        await pipe.Writer.WriteAsync(new byte[4]);
        var result = await reader.ReadAsync();
        reader.AdvanceTo(result.Buffer.GetPosition(1), result.Buffer.End);
        await pipe.Writer.WriteAsync(new byte[2]);
        result = await reader.ReadAsync();
        Assert.Equal(6, reader.BytesSeen);
        reader.AdvanceTo(result.Buffer.End);
        await pipe.Writer.WriteAsync(new byte[1]);

        await Assert.ThrowsAsync<InFlightBudgetExceededException>(async () => await reader.ReadAsync());
        Assert.Equal([4L, 6L, 7L], asked);

        var limited = new Pipe();
        using var limitedClock = new BodyStallClock(new FakeTimeProvider(), Timeout, limited.Reader.CancelPendingRead);
        var overLimit = new GuardedBodyReader(limited.Reader, ownsInner: false, 10, admit: null, limitedClock, decoding: null);
        await limited.Writer.WriteAsync(new byte[11]);
        var tooLarge = await Assert.ThrowsAsync<BadHttpRequestException>(async () => await overLimit.ReadAsync());
        Assert.Equal(StatusCodes.Status413PayloadTooLarge, tooLarge.StatusCode);
    }
}
