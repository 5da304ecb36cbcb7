using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
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
internal sealed class EnvelopeRequestReader(
    RecyclableMemoryStreamManager streams, IRequestDecompressionProvider decompression, IOptions<SigningOptions> options)
{
    /// <summary>
    /// What a refused request is told to wait (<c>Retry-After</c>): requests in flight finish in milliseconds to a few
    /// seconds, so a second is long enough for room to open and short enough not to idle a client.
    /// </summary>
    public const int RetryAfterSeconds = 1;

    // The tag of the streams bodies are drained into, as the pool's events report it.
    private const string BodyStreamTag = "body";

    // Reads stay the size the transport likes, whatever the block size.
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
    /// Negotiates the body (<see cref="BodyNegotiation"/>), charges the request against the in-flight budget for
    /// <paramref name="strategy"/> (at once for a declared size, as the bytes arrive otherwise), drains the body
    /// asynchronously into pooled blocks and parses it, recording each phase in <paramref name="phases"/> as it
    /// completes. The charge stays with the caller, who keeps it until signing ends. Client mistakes and refusals come
    /// back as a problem; only a fault of the server, or cancellation, escapes as an exception.
    /// </summary>
    public async Task<EnvelopeRead> ReadAsync(
        HttpRequest request, ISigningStrategy strategy, InFlightCharge charge, RequestPhases phases, CancellationToken cancellationToken)
    {
        // Stryker disable once Statement : a guard for internal callers, which always pass a strategy.
        ArgumentNullException.ThrowIfNull(strategy);
        var blockSize = options.Value.RecyclableMemoryStream.BlockSize;
        var problem = Open(request, charge, bytes => RequestMemory.For(strategy, bytes, blockSize), cancellationToken, out var body);
        if (problem is not null)
        {
            return new EnvelopeRead(null, problem);
        }

        try
        {
            using var buffer = streams.GetStream(BodyStreamTag);
            await body.CopyToAsync(buffer, ReadSize, cancellationToken);
            phases.Read = phases.Elapsed;
            phases.BodyBytes = buffer.Length;
            if (buffer.Length == 0)
            {
                return new EnvelopeRead(null, SignProblems.EmptyBody());
            }

            var parsing = PhaseMark.Start();
            try
            {
                return new EnvelopeRead(EnvelopeParser.Parse(buffer), null);
            }
            finally
            {
                phases.Parse = parsing.Stop();
            }
        }
        catch (Exception e) when (IsTheClients(e))
        {
            return new EnvelopeRead(null, AsProblem(request, e));
        }
        // Stryker disable once Block,Statement : frees the stall source, already stopped (see GuardedBodyStream.Dispose).
        finally
        {
            await body.DisposeAsync();
        }
    }

    /// <summary>
    /// The <c>transcode</c> path: the same negotiation, limits and admission as <see cref="ReadAsync"/>, but the body
    /// is signed by <paramref name="signer"/> as it arrives, token by token, and never held. Reading and signing are
    /// one phase here, recorded as the read.
    /// </summary>
    public async Task<TranscodeRead> TranscodeAsync(
        HttpRequest request, TranscodingSigner signer, InFlightCharge charge, RequestPhases phases, CancellationToken cancellationToken)
    {
        // Stryker disable once Statement : a guard for internal callers, which always pass a signer.
        ArgumentNullException.ThrowIfNull(signer);
        var blockSize = options.Value.RecyclableMemoryStream.BlockSize;
        var problem = Open(request, charge, bytes => RequestMemory.ForTranscode(bytes, blockSize), cancellationToken, out var body);
        if (problem is not null)
        {
            return new TranscodeRead(null, problem);
        }

        try
        {
            // Stryker disable once Boolean : leaving the body open only spares it a second Dispose, which is harmless.
            var reader = PipeReader.Create(body, new StreamPipeReaderOptions(bufferSize: ReadSize, leaveOpen: true));
            try
            {
                var result = await signer.SignAsync(reader, cancellationToken);
                phases.Read = phases.Elapsed;
                phases.BodyBytes = result.BodyBytes;
                return result.IsEmptyBody ? new TranscodeRead(null, SignProblems.EmptyBody()) : new TranscodeRead(result, null);
            }
            // Stryker disable once Block,Statement : hands the reader's pooled segments back; without it they are collected
            // instead, which no caller can see.
            finally
            {
                await reader.CompleteAsync();
            }
        }
        catch (Exception e) when (IsTheClients(e))
        {
            phases.BodyBytes = body.BytesRead;
            return new TranscodeRead(null, AsProblem(request, e));
        }
        // Stryker disable once Block,Statement : frees the stall source, already stopped (see GuardedBodyStream.Dispose).
        finally
        {
            await body.DisposeAsync();
        }
    }

    private static ProblemHttpResult Overloaded(HttpRequest request)
    {
        request.HttpContext.Response.Headers.RetryAfter = RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        return SignProblems.Overloaded(RetryAfterSeconds);
    }

    // What both paths do before a byte is read: negotiate, refuse a declared size past the limit, charge what the
    // request will hold for its declared size (or for nothing yet), and guard the body as it is read. A problem, or
    // null and the body to read.
    private ProblemHttpResult? Open(
        HttpRequest request, InFlightCharge charge, Func<long, long> chargeFor, CancellationToken cancellationToken, out GuardedBodyStream body)
    {
        // Stryker disable Statement : guards for internal callers, which always pass both.
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(charge);
        // Stryker restore Statement
        body = null!;
        if (!BodyNegotiation.TryOpen(request, decompression, out var stream, out var declaredBytes, out var problem))
        {
            return problem;
        }

        var signing = options.Value;
        if (declaredBytes > signing.MaxRequestBodyBytes)
        {
            return SignProblems.BadRequest(new BadHttpRequestException(
                $"The body is larger than the limit of {signing.MaxRequestBodyBytes} bytes.", StatusCodes.Status413PayloadTooLarge));
        }

        if (!charge.TryRaiseTo(chargeFor(declaredBytes ?? 0)))
        {
            return Overloaded(request);
        }

        body = new GuardedBodyStream(
            stream, signing.MaxRequestBodyBytes, signing.BodyStallTimeout, bytes => charge.TryRaiseTo(chargeFor(bytes)), cancellationToken);
        return null;
    }

    // The failures a request's body can end in that are the client's or the budget's; anything else (a fault of the
    // server, or cancellation) escapes.
    private static bool IsTheClients(Exception exception) =>
        exception is BadHttpRequestException or InFlightBudgetExceededException or EnvelopeFormatException;

    // One of those failures as the problem to answer with.
    private static ProblemHttpResult AsProblem(HttpRequest request, Exception exception)
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
                else if (e.StatusCode == StatusCodes.Status408RequestTimeout)
                {
                    // A client that went silent will not finish its body; waiting to drain it would hold the connection.
                    request.HttpContext.Response.Headers.Connection = "close";
                }

                return SignProblems.BadRequest(e);
            case InFlightBudgetExceededException:
                return Overloaded(request);
            default:
                return SignProblems.InvalidEnvelope((EnvelopeFormatException)exception);
        }
    }
}
