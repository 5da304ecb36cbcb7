using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.RequestDecompression;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using Signing.Http.Keys;
using Signing.Http.Memory;
using Signing.Http.Requests;

namespace Signing.Http;

/// <summary>
/// <c>POST /api/sign</c>, written once: SigningServer maps it as a minimal API and the Azure Functions app calls it
/// from its <c>sign</c> function, so both hosts parse, choose and fail in exactly the same way.
/// </summary>
public sealed class SignEndpoint(
    SigningKeyRing keys,
    RecyclableMemoryStreamManager streams,
    IRequestDecompressionProvider decompression,
    InFlightBudget budget,
    StrategyBodyLimits bodyLimits,
    SlowBodies slowBodies,
    TimeProvider time,
    SigningTelemetry telemetry,
    IOptions<SigningOptions> options,
    ILogger<SignEndpoint> logger)
{
    /// <summary>The value of <see cref="SignResponse.Algorithm"/>, and the only algorithm verify checks.</summary>
    internal const string Algorithm = "HMAC-SHA256";

    private readonly EnvelopeRequestReader _reader = new(streams, decompression, options, bodyLimits, slowBodies, time);

    /// <summary>
    /// Signs the envelope in <paramref name="request"/>'s body with the active key and the strategy named by
    /// <c>?strategy=</c> (default <see cref="SigningStrategies.DefaultName"/>). Client mistakes come back as problem
    /// details with a 4xx status; only a fault of the server itself escapes as an exception.
    /// </summary>
    /// <remarks>
    /// Once the strategy is known, every response carries what the request cost (<see cref="SignCostHeaders"/>) and
    /// every outcome is counted against that strategy (<see cref="SigningTelemetry"/>) and logged. Parsing and signing
    /// are synchronous, so their allocations are read from the request's own thread and belong to this request alone.
    /// </remarks>
    public async Task<IResult> HandleAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);

        var phases = new RequestPhases();
        if (!EnvelopeRequestReader.TryChooseStrategy(request, keys.Active, out var choice, out var problem))
        {
            return Rejected(problem, SigningLog.RequestedStrategy(request.Query["strategy"]), phases);
        }

        var outcome = RequestOutcome.Failed;
        using var charge = budget.Open();
        try
        {
            var (signed, refused) = choice.Strategy is { } strategy
                ? await SignEnvelopeAsync(request, strategy, charge, phases, cancellationToken)
                : await TranscodeAsync(request, charge, phases, cancellationToken);
            if (refused is not null)
            {
                outcome = refused.StatusCode == StatusCodes.Status503ServiceUnavailable ? RequestOutcome.Refused : RequestOutcome.Failed;
                return Rejected(refused, choice.Name, phases);
            }

            outcome = RequestOutcome.Succeeded;
            if (logger.IsEnabled(LogLevel.Information))
            {
                double readMs = Milliseconds(phases.Read), parseMs = Milliseconds(phases.Parse?.Duration), signMs = Milliseconds(phases.Sign?.Duration);
                SigningLog.Signed(
                    logger, choice.Name, keys.ActiveKeyId, signed.WidgetCount, phases.BodyBytes, signed.BytesSigned,
                    readMs, parseMs, signMs, phases.Elapsed.TotalMilliseconds);
            }

            return TypedResults.Ok(new SignResponse(signed.Value, choice.Name, Algorithm, signed.WidgetCount, signed.BytesSigned, keys.ActiveKeyId));
        }
        finally
        {
            // Headers go on now, before the host executes the result; a fault that escapes is answered by the
            // exception handler, which clears them along with everything else.
            var cost = phases.Cost;
            SignCostHeaders.Write(request.HttpContext.Response.Headers, cost);
            telemetry.Record(choice.Name, cost, phases.Elapsed, outcome, phases.BodyBytes);
        }
    }

    /// <summary>A phase's duration for a log field: zero for a phase the request never reached.</summary>
    internal static double Milliseconds(TimeSpan? duration) => duration?.TotalMilliseconds ?? 0;

    // The envelope strategies: read and parse the body, then sign the envelope on this thread.
    private async Task<(Signature Signed, ProblemHttpResult? Problem)> SignEnvelopeAsync(
        HttpRequest request, ISigningStrategy strategy, InFlightCharge charge, RequestPhases phases, CancellationToken cancellationToken)
    {
        var read = await _reader.ReadAsync(request, strategy, charge, phases, cancellationToken);
        if (read.Envelope is not { } envelope)
        {
            return (default, read.Problem);
        }

        cancellationToken.ThrowIfCancellationRequested();
        var signing = PhaseMark.Start();
        try
        {
            var result = strategy.Sign(envelope);
            return (new Signature(result.Signature, envelope.Widgets.Count, result.BytesSigned), null);
        }
        finally
        {
            phases.Sign = signing.Stop();
        }
    }

    // transcode: the body is signed as it is read.
    private async Task<(Signature Signed, ProblemHttpResult? Problem)> TranscodeAsync(
        HttpRequest request, InFlightCharge charge, RequestPhases phases, CancellationToken cancellationToken)
    {
        var read = await _reader.TranscodeAsync(request, keys.Transcoder, charge, phases, cancellationToken);
        return read.Result is { } result
            ? (new Signature(result.Signature, result.WidgetCount, result.BytesSigned), null)
            : (default, read.Problem);
    }

    private ProblemHttpResult Rejected(ProblemHttpResult problem, string strategy, RequestPhases phases)
    {
        if (logger.IsEnabled(LogLevel.Information))
        {
            SigningLog.SignRejected(logger, strategy, problem.StatusCode, problem.ProblemDetails.Title, phases.BodyBytes, phases.Elapsed.TotalMilliseconds);
        }

        return problem;
    }

    private readonly record struct Signature(string Value, int WidgetCount, long BytesSigned);
}
