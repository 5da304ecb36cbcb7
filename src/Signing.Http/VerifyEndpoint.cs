using System.Security.Cryptography;
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
/// <c>POST /api/verify</c>, written once for both hosts like <see cref="SignEndpoint"/>: the receiver's side of a
/// signature. It takes the same body and <c>?strategy=</c> as sign, parses them through the same code, and checks the
/// claimed <see cref="SignatureHeader"/> against every configured key, so that a signature made with a key that has
/// just stopped signing still verifies during a rotation.
/// </summary>
/// <remarks>
/// Verify is logged but not counted in <see cref="SigningTelemetry"/> or <c>GET /api/stats</c>: those describe what a
/// sign costs per strategy, and a verify runs the strategy once per key tried, which would blur them.
/// </remarks>
public sealed class VerifyEndpoint(
    SigningKeyRing keys,
    RecyclableMemoryStreamManager streams,
    IRequestDecompressionProvider decompression,
    InFlightBudget budget,
    StrategyBodyLimits bodyLimits,
    SlowBodies slowBodies,
    TimeProvider time,
    IOptions<SigningOptions> options,
    ILogger<VerifyEndpoint> logger)
{
    // Stands in for the strategy in the logs when the request named none that exists (sign logs what was asked for).
    private const string NoStrategy = "none";

    private readonly EnvelopeRequestReader _reader = new(streams, decompression, options, bodyLimits, slowBodies, time);

    /// <summary>
    /// Answers 200 with the matching key's id (<see cref="VerifyResponse"/>) when the header's HMAC equals the
    /// envelope's under some configured key, 401 when it equals none, and 400 when the header is missing or malformed
    /// (checked before the body is read). Body and strategy problems are exactly those of sign. All errors are problem
    /// details; only a fault of the server itself escapes as an exception.
    /// </summary>
    public async Task<IResult> HandleAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);

        var phases = new RequestPhases();
        if (!EnvelopeRequestReader.TryChooseStrategy(request, keys.Active, out var choice, out var problem))
        {
            return Rejected(problem, NoStrategy, phases);
        }

        // Decoded once, before the body is read; an array because it is used after the await.
        var header = request.Headers[SignatureHeader.Name];
        var claimed = new byte[SignatureHeader.HmacBytes];
        if (header.Count != 1 || !SignatureHeader.TryDecode(header.ToString(), claimed))
        {
            return Rejected(SignProblems.MalformedSignatureHeader(), choice.Name, phases);
        }

        using var charge = budget.Open();
        VerifyMatch match;
        int widgetCount;
        if (choice.Strategy is { } strategy)
        {
            var read = await _reader.ReadAsync(request, strategy, charge, phases, cancellationToken);
            if (read.Envelope is not { } envelope)
            {
                return Rejected(read.Problem!, choice.Name, phases);
            }

            cancellationToken.ThrowIfCancellationRequested();
            var signing = PhaseMark.Start();
            match = Match(key => keys.Keys[key].Strategies[strategy.Name].Sign(envelope), claimed);
            phases.Sign = signing.Stop();
            widgetCount = envelope.Widgets.Count;
        }
        else
        {
            // The body can be read only once, so transcode signs it under every key in one pass.
            var read = await _reader.TranscodeAsync(request, keys.EveryKeyTranscoder, charge, phases, cancellationToken);
            if (read.Result is not { } result)
            {
                return Rejected(read.Problem!, choice.Name, phases);
            }

            match = Match(key => new SignResult(result.Signatures[key], result.BytesSigned), claimed);
            widgetCount = result.WidgetCount;
        }

        if (match.KeyId is not { } keyId)
        {
            if (logger.IsEnabled(LogLevel.Warning))
            {
                var signMs = SignEndpoint.Milliseconds(phases.Sign?.Duration);
                SigningLog.VerifyMismatch(
                    logger, choice.Name, keys.Keys.Count, widgetCount, phases.BodyBytes, match.BytesSigned,
                    signMs, phases.Elapsed.TotalMilliseconds);
            }

            return SignProblems.SignatureMismatch();
        }

        if (logger.IsEnabled(LogLevel.Information))
        {
            var signMs = SignEndpoint.Milliseconds(phases.Sign?.Duration);
            SigningLog.Verified(
                logger, choice.Name, keyId, match.KeysTried, keys.Keys.Count, widgetCount, phases.BodyBytes, match.BytesSigned,
                signMs, phases.Elapsed.TotalMilliseconds);
        }

        return TypedResults.Ok(new VerifyResponse(keyId, choice.Name, SignEndpoint.Algorithm, widgetCount, match.BytesSigned));
    }

    // Takes each key's signature in turn (signWith, by the key's place in the ring), the active key first, and
    // compares bytes in constant time: how long a comparison takes says nothing about how much of the claimed HMAC was right.
    private VerifyMatch Match(Func<int, SignResult> signWith, ReadOnlySpan<byte> claimed)
    {
        Span<byte> computed = stackalloc byte[SignatureHeader.HmacBytes];

        long bytesSigned = 0;
        for (var i = 0; i < keys.Keys.Count; i++)
        {
            var result = signWith(i);
            bytesSigned = result.BytesSigned;
            Convert.FromHexString(result.Signature, computed, out _, out _);
            if (CryptographicOperations.FixedTimeEquals(computed, claimed))
            {
                return new VerifyMatch(keys.Keys[i].KeyId, i + 1, bytesSigned);
            }
        }

        return new VerifyMatch(null, keys.Keys.Count, bytesSigned);
    }

    private ProblemHttpResult Rejected(ProblemHttpResult problem, string strategy, RequestPhases phases)
    {
        if (logger.IsEnabled(LogLevel.Information))
        {
            SigningLog.VerifyRejected(logger, strategy, problem.StatusCode, problem.ProblemDetails.Title, phases.BodyBytes, phases.Elapsed.TotalMilliseconds);
        }

        return problem;
    }
}
