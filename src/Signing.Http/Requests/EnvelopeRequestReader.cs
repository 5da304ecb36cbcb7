using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.RequestDecompression;
using Microsoft.Extensions.Options;
using Microsoft.IO;
using Signing.Http.Memory;

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

    /// <summary>
    /// Finds the strategy named by <c>?strategy=</c> (default <see cref="SigningStrategies.DefaultName"/>) in
    /// <paramref name="strategies"/>, or says why the request names none.
    /// </summary>
    public static bool TryChooseStrategy(
        HttpRequest request,
        SigningStrategies strategies,
        [NotNullWhen(true)] out ISigningStrategy? strategy,
        [NotNullWhen(false)] out ProblemHttpResult? problem)
    {
        strategy = null;
        problem = null;
        var requested = request.Query["strategy"];
        if (requested.Count > 1)
        {
            problem = SignProblems.StrategyGivenTwice();
            return false;
        }

        // Only a request that names no strategy gets the default; an empty name is a name, and unknown.
        var name = requested.Count == 0 ? SigningStrategies.DefaultName : requested.ToString();
        if (!strategies.TryGet(name, out strategy))
        {
            problem = SignProblems.UnknownStrategy(name, strategies.Names);
            return false;
        }

        return true;
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
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(strategy);
        ArgumentNullException.ThrowIfNull(charge);
        ArgumentNullException.ThrowIfNull(phases);
        if (!BodyNegotiation.TryOpen(request, decompression, out var stream, out var declaredBytes, out var problem))
        {
            return new EnvelopeRead(null, problem);
        }

        var signing = options.Value;
        var blockSize = signing.RecyclableMemoryStream.BlockSize;
        try
        {
            if (declaredBytes > signing.MaxRequestBodyBytes)
            {
                throw new BadHttpRequestException($"The body is larger than the limit of {signing.MaxRequestBodyBytes} bytes.", StatusCodes.Status413PayloadTooLarge);
            }

            if (!charge.TryRaiseTo(RequestMemory.For(strategy, declaredBytes ?? 0, blockSize)))
            {
                return new EnvelopeRead(null, Overloaded(request));
            }

            using var body = await RequestBodyReader.ReadAsync(
                stream, streams, signing.MaxRequestBodyBytes, signing.BodyStallTimeout,
                bytes => charge.TryRaiseTo(RequestMemory.For(strategy, bytes, blockSize)), cancellationToken);
            phases.Read = phases.Elapsed;
            phases.BodyBytes = body.Length;
            if (body.Length == 0)
            {
                return new EnvelopeRead(null, SignProblems.EmptyBody());
            }

            var parsing = PhaseMark.Start();
            try
            {
                return new EnvelopeRead(EnvelopeParser.Parse(body), null);
            }
            finally
            {
                phases.Parse = parsing.Stop();
            }
        }
        catch (BadHttpRequestException e)
        {
            if (e.InnerException is IOException)
            {
                // The transport failed under the read (RequestBodyReader): the client is gone. Abort rather than let
                // Kestrel try to drain a body whose reader is broken, which it would log as an error.
                request.HttpContext.Abort();
            }
            else if (e.StatusCode == StatusCodes.Status408RequestTimeout)
            {
                // A client that went silent will not finish its body; waiting to drain it would hold the connection.
                request.HttpContext.Response.Headers.Connection = "close";
            }

            return new EnvelopeRead(null, SignProblems.BadRequest(e));
        }
        catch (InFlightBudgetExceededException)
        {
            return new EnvelopeRead(null, Overloaded(request));
        }
        catch (EnvelopeFormatException e)
        {
            return new EnvelopeRead(null, SignProblems.InvalidEnvelope(e));
        }
    }

    private static ProblemHttpResult Overloaded(HttpRequest request)
    {
        request.HttpContext.Response.Headers.RetryAfter = RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        return SignProblems.Overloaded(RetryAfterSeconds);
    }
}
