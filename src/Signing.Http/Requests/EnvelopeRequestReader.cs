using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.RequestDecompression;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using Signing.Http.Memory;
using Signing.Transcoding;

namespace Signing.Http.Requests;

/// <summary>
/// The part of a request that sign and verify share: the strategy named by <c>?strategy=</c> and the envelope in the
/// body, with the same checks and the same problems, so that verify accepts exactly what sign accepts.
/// </summary>
/// <remarks>
/// A request is charged against the in-flight budget for what it holds, step by step: nothing for what it declares,
/// the body's blocks as they arrive (<see cref="RequestMemory.ForArrivedBody"/>), the envelope's multiple before
/// parsing and the strategy's before signing (<c>transcode</c>: its multiple as the bytes arrive). A step that does not
/// fit ends the request with 503 and <c>Retry-After</c> before it holds more; nothing is signed and every pooled block
/// goes back. There is no reservation up front, so there is nothing for an idle connection to hold, and nothing to
/// bound per client.
/// </remarks>
internal sealed class EnvelopeRequestReader(
    RecyclableMemoryStreamManager streams,
    IRequestDecompressionProvider decompression,
    IOptions<SigningOptions> options,
    StrategyBodyLimits bodyLimits,
    SlowBodies slowBodies,
    TimeProvider time)
{
    /// <summary>
    /// What a refused request is told to wait (<c>Retry-After</c>): requests in flight finish in milliseconds to a few
    /// seconds, so a second is long enough for room to open and short enough not to idle a client.
    /// </summary>
    public const int RetryAfterSeconds = 1;

    /// <summary>
    /// How long a stalled request's connection stays open after its 408 has been handed to the transport, so the
    /// response is sent before the connection is closed. Without the close Kestrel would wait up to 5 s for the rest
    /// of a body that is not coming, to keep the connection; a close at once can cut off the 408 itself.
    /// </summary>
    internal static readonly TimeSpan StalledConnectionGrace = TimeSpan.FromMilliseconds(250);

    // The tag of the streams bodies are drained into, as the pool's events report it.
    private const string BodyStreamTag = "body";

    // Reads of a decompressing stream stay the size the transport likes, whatever the block size.
    private const int ReadSize = 16 * 1024;

    /// <summary>
    /// Finds the strategy named by <c>?strategy=</c> (default <see cref="SigningStrategies.DefaultName"/>) among
    /// <paramref name="strategies"/> and <c>transcode</c>, or says why the request names none.
    /// </summary>
    public static bool TryChooseStrategy(
        HttpRequest request,
        SigningStrategies strategies,
        out StrategyChoice choice,
        [NotNullWhen(false)] out ProblemHttpResult? problem)
    {
        choice = default;
        problem = null;
        var requested = request.Query["strategy"];
        if (requested.Count > 1)
        {
            problem = SignProblems.StrategyGivenTwice();
            return false;
        }

        // Only a request that names no strategy gets the default; an empty name is a name, and unknown.
        var name = requested.Count == 0 ? SigningStrategies.DefaultName : requested.ToString();
        if (strategies.TryGet(name, out var strategy))
        {
            choice = new StrategyChoice(strategy.Name, strategy);
            return true;
        }

        if (name.Equals(TranscodingSigner.StrategyName, StringComparison.OrdinalIgnoreCase))
        {
            choice = new StrategyChoice(TranscodingSigner.StrategyName, null);
            return true;
        }

        problem = SignProblems.UnknownStrategy(name, [.. strategies.Names, TranscodingSigner.StrategyName]);
        return false;
    }

    /// <summary>
    /// Negotiates the body (<see cref="BodyNegotiation"/>), drains it asynchronously into pooled blocks and parses it,
    /// charging the request against the in-flight budget for <paramref name="strategy"/> as it comes to hold each part
    /// (see the class), and recording each phase in <paramref name="phases"/> as it completes. The envelope comes back
    /// only once the charge for signing it is held; the charge stays with the caller, who keeps it until signing ends.
    /// Client mistakes and refusals come back as a problem; only a fault of the server, or cancellation, escapes as an
    /// exception.
    /// </summary>
    public async Task<EnvelopeRead> ReadAsync(
        HttpRequest request, ISigningStrategy strategy, InFlightCharge charge, RequestPhases phases, CancellationToken cancellationToken)
    {
        // Stryker disable once Statement : a guard for internal callers, which always pass a strategy.
        ArgumentNullException.ThrowIfNull(strategy);
        var blockSize = options.Value.RecyclableMemoryStream.BlockSize;
        var problem = Open(request, strategy.Name, charge, bytes => RequestMemory.ForArrivedBody(bytes, blockSize), out var body, out var clock);
        if (problem is not null)
        {
            return new EnvelopeRead(null, problem);
        }

        try
        {
            using var buffer = streams.GetStream(BodyStreamTag);
            await DrainAsync(body, buffer, cancellationToken);
            phases.Read = phases.Elapsed;
            phases.BodyBytes = buffer.Length;
            if (buffer.Length == 0)
            {
                return new EnvelopeRead(null, SignProblems.EmptyBody());
            }

            if (!charge.TryRaiseTo(RequestMemory.ForParse(buffer.Length, blockSize)))
            {
                return new EnvelopeRead(null, Overloaded(request));
            }

            var parsing = PhaseMark.Start();
            WidgetEnvelope envelope;
            try
            {
                envelope = EnvelopeParser.Parse(buffer);
            }
            finally
            {
                phases.Parse = parsing.Stop();
            }

            var documentBytes = CanonicalLength.AtMost(buffer.GetReadOnlySequence(), envelope.Widgets.Count);
            if (!bodyLimits.Takes(strategy.Name, buffer.Length, documentBytes))
            {
                return new EnvelopeRead(null, SignProblems.DocumentTooLarge(strategy.Name, documentBytes, bodyLimits.Taking(buffer.Length, documentBytes)));
            }

            return charge.TryRaiseTo(RequestMemory.For(strategy, buffer.Length, documentBytes, blockSize))
                ? new EnvelopeRead(envelope, null)
                : new EnvelopeRead(null, Overloaded(request));
        }
        catch (Exception e) when (IsTheClients(e))
        {
            phases.BodyBytes = body.BytesSeen;
            return new EnvelopeRead(null, AsProblem(request, strategy.Name, e));
        }
        finally
        {
            await CloseAsync(body, clock);
        }
    }

    /// <summary>
    /// The <c>transcode</c> path: the same negotiation, limits and admission as <see cref="ReadAsync"/>, but the body
    /// is signed by <paramref name="signer"/> as it arrives, token by token, straight from the host's reader, and never
    /// held. Reading and signing are one phase here, recorded as the read.
    /// </summary>
    public async Task<TranscodeRead> TranscodeAsync(
        HttpRequest request, TranscodingSigner signer, InFlightCharge charge, RequestPhases phases, CancellationToken cancellationToken)
    {
        // Stryker disable once Statement : a guard for internal callers, which always pass a signer.
        ArgumentNullException.ThrowIfNull(signer);
        var blockSize = options.Value.RecyclableMemoryStream.BlockSize;
        var problem = Open(
            request, TranscodingSigner.StrategyName, charge, bytes => RequestMemory.ForTranscode(bytes, blockSize), out var body, out var clock);
        if (problem is not null)
        {
            return new TranscodeRead(null, problem);
        }

        try
        {
            var result = await signer.SignAsync(body, cancellationToken);
            phases.Read = phases.Elapsed;
            phases.BodyBytes = result.BodyBytes;
            return result.IsEmptyBody ? new TranscodeRead(null, SignProblems.EmptyBody()) : new TranscodeRead(result, null);
        }
        catch (Exception e) when (IsTheClients(e))
        {
            phases.BodyBytes = body.BytesSeen;
            return new TranscodeRead(null, AsProblem(request, TranscodingSigner.StrategyName, e));
        }
        finally
        {
            await CloseAsync(body, clock);
        }
    }

    // A refusal for room also cuts the bodies that are not arriving (SlowBodies), so that room opens for the next request.
    private ProblemHttpResult Overloaded(HttpRequest request)
    {
        slowBodies.CutSilent();
        request.HttpContext.Response.Headers.RetryAfter = RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        return SignProblems.Overloaded(RetryAfterSeconds);
    }

    // Copies the body, segment by segment as the host's reader holds it, into the pooled stream: the one copy an
    // envelope strategy needs, since the parser reads a whole document.
    private static async Task DrainAsync(PipeReader body, RecyclableMemoryStream buffer, CancellationToken cancellationToken)
    {
        while (true)
        {
            var result = await body.ReadAsync(cancellationToken);
            foreach (var segment in result.Buffer)
            {
                buffer.Write(segment.Span);
            }

            body.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted)
            {
                return;
            }
        }
    }

    // The reader is completed (a decompressing one hands back its buffers; the host's own is left to the host) and the
    // stall clock's timer is freed, however the request ended.
    private static async ValueTask CloseAsync(GuardedBodyReader body, BodyStallClock clock)
    {
        await body.CompleteAsync();
        clock.Dispose();
    }

    // What both paths do before a byte is read: negotiate, refuse a declared size over the strategy's own limit, and
    // guard the body as it is read. A problem, or null and the body to read with its stall clock. Nothing is charged yet.
    private ProblemHttpResult? Open(
        HttpRequest request, string strategy, InFlightCharge charge, Func<long, long> chargeFor, out GuardedBodyReader body, out BodyStallClock clock)
    {
        // Stryker disable Statement : guards for internal callers, which always pass both.
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(charge);
        // Stryker restore Statement
        body = null!;
        clock = null!;

        // The host's reader, taken before negotiation may swap Request.Body for a decompressor's source.
        var host = request.BodyReader;
        var signing = options.Value;
        var stall = new BodyStallClock(time, signing.BodyStallTimeout, host.CancelPendingRead, slowBodies, charge);
        GuardedBodyReader? wire = null;
        var opened = BodyNegotiation.TryOpen(
            request,
            decompression,
            () => (wire = new GuardedBodyReader(host, ownsInner: false, long.MaxValue, admit: null, stall, decoding: null, progress: stall)).AsStream(leaveOpen: true),
            out var decompressing,
            out var declaredBytes,
            out var problem);
        if (!opened)
        {
            stall.Dispose();
            return problem;
        }

        var limit = bodyLimits[strategy];
        if (declaredBytes > limit)
        {
            stall.Dispose();
            CloseIfHostWillNotDrain(request.HttpContext, declaredBytes.Value);
            return TooLarge(strategy, declaredBytes.Value);
        }

        Func<long, bool> admit = bytes => charge.TryRaiseTo(chargeFor(bytes));
        // A compressed body progresses by what arrives and by what it decompresses to, both (see ExpectDecompressed);
        // the wire's side times the waits, and the charge is for the decompressed bytes.
        if (decompressing is not null)
        {
            stall.ExpectDecompressed();
        }

        // The decompressor reads the host's body through wire, which counts what came compressed.
        // Stryker disable once Logical : the decompressor is made only over wire, so both are null or neither.
        body = decompressing is null || wire is null
            ? new GuardedBodyReader(host, ownsInner: false, limit, admit, stall, decoding: null, progress: stall)
            : new GuardedBodyReader(
                PipeReader.Create(decompressing, new StreamPipeReaderOptions(bufferSize: ReadSize)),
                ownsInner: true,
                limit,
                admit,
                clock: null,
                decompressing,
                progress: stall,
                new DecompressionRatio(wire, signing.MaxDecompressionRatio));
        clock = stall;
        return null;
    }

    // A body of bodyBytes (or more) over what the strategy takes.
    private ProblemHttpResult TooLarge(string strategy, long bodyBytes) =>
        SignProblems.BodyTooLarge(strategy, bodyLimits[strategy], options.Value.MaxRequestBodyBytes, bodyLimits.Taking(bodyBytes));

    // The failures a request's body can end in that are the client's or the budget's; anything else (a fault of the
    // server, or cancellation) escapes.
    private static bool IsTheClients(Exception exception) =>
        exception is BadHttpRequestException or InFlightBudgetExceededException or EnvelopeFormatException;

    // One of those failures as the problem to answer with.
    private ProblemHttpResult AsProblem(HttpRequest request, string strategy, Exception exception)
    {
        switch (exception)
        {
            case BadHttpRequestException e:
                if (e.InnerException is IOException)
                {
                    // The transport failed under the read: the client is gone. Abort rather than let Kestrel try to
                    // drain a body whose reader is broken, which it would log as an error.
                    request.HttpContext.Abort();
                }
                else if (e is BodyStalledException)
                {
                    CloseAfterResponse(request.HttpContext);
                }
                else if (e is DecompressionRatioExceededException inflated)
                {
                    // Refused part-way, as the 413 below: how much more is coming is not known.
                    request.HttpContext.Response.Headers.Connection = "close";
                    return SignProblems.InflatesTooFar(inflated);
                }
                else if (e.StatusCode == StatusCodes.Status413PayloadTooLarge)
                {
                    // Refused part-way (a declared length is refused before the body is read), so how much more is
                    // coming is not known: kept alive, Kestrel would read it all, and drop the connection under the
                    // client's next request once it passed the host's own limit. Kestrel's own 413 closes too.
                    request.HttpContext.Response.Headers.Connection = "close";

                    // Whether the endpoint's count stopped the read or Kestrel's own limit (the same number on
                    // SigningServer), the problem has the fields a declared length's has, so a client reads one shape.
                    return TooLarge(strategy, bodyLimits[strategy] + 1);
                }
                else
                {
                    // The body broke off part-way (cut short, badly framed, too slow for Kestrel) or did not decode:
                    // what follows on the connection is no next request. Kestrel, told so, answers with a close (or,
                    // when the client has gone, just closes); otherwise it reads on, and after a read that examined
                    // bytes it did not consume (transcode's, in the middle of a token) its reader is still mid-read,
                    // which it logs as a connection that "ended abnormally".
                    request.HttpContext.Features.Get<IConnectionLifetimeNotificationFeature>()?.RequestClose();
                }

                return SignProblems.BadRequest(e);
            case InFlightBudgetExceededException:
                return Overloaded(request);
            default:
                return SignProblems.InvalidEnvelope((EnvelopeFormatException)exception);
        }
    }

    // A declared body past the host's own limit is one Kestrel will not drain after the answer: it closes the
    // connection instead, but its answer to a refusal it did not make itself still says keep-alive, and a client that
    // sends its next request in the moment before the close loses that request. Kestrel's own refusals say close.
    private static void CloseIfHostWillNotDrain(HttpContext context, long declaredBytes)
    {
        if (context.Features.Get<IHttpMaxRequestBodySizeFeature>()?.MaxRequestBodySize < declaredBytes)
        {
            context.Response.Headers.Connection = "close";
        }
    }

    // A client that went silent (or that is refused before its body is read: ClientLimits) will not finish its body, and
    // Kestrel would hold the connection up to 5 s draining it: the connection closes once the answer has had time to
    // leave. Connection: close stops a second request on it meanwhile. Only for our own answers: after Kestrel's 408 an
    // abort would only race its graceful close, and lose the answer when the transport's send loop has not run within
    // the grace (1 of 50 idle attackers, once, on a busy CI machine).
    internal static void CloseAfterResponse(HttpContext context)
    {
        context.Response.Headers.Connection = "close";

        // The host awaits its completion callbacks before it drains the body or disposes the context, so the context
        // is still this request's when the grace ends, and the drain never starts.
        context.Response.OnCompleted(async () =>
        {
            await Task.Delay(StalledConnectionGrace);
            context.Abort();
        });
    }
}
