using System.Diagnostics.CodeAnalysis;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.IO;

namespace Signing.Http.Requests;

/// <summary>
/// The part of a request that sign and verify share: the strategy named by <c>?strategy=</c> and the envelope in the
/// body, with the same checks and the same problems, so that verify accepts exactly what sign accepts.
/// </summary>
internal sealed class EnvelopeRequestReader(RecyclableMemoryStreamManager streams, long maxBodyBytes)
{
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

        var name = string.IsNullOrEmpty(requested.ToString()) ? SigningStrategies.DefaultName : requested.ToString();
        if (!strategies.TryGet(name, out strategy))
        {
            problem = SignProblems.UnknownStrategy(name, strategies.Names);
            return false;
        }

        return true;
    }

    /// <summary>
    /// Checks the content type and length, drains the body asynchronously into pooled blocks and parses it, recording
    /// each phase in <paramref name="phases"/> as it completes. Client mistakes come back as a problem; only a fault of
    /// the server, or cancellation, escapes as an exception.
    /// </summary>
    public async Task<EnvelopeRead> ReadAsync(HttpRequest request, RequestPhases phases, CancellationToken cancellationToken)
    {
        if (!request.HasJsonContentType())
        {
            return new EnvelopeRead(null, SignProblems.UnsupportedMediaType(request.ContentType));
        }

        try
        {
            if (request.ContentLength > maxBodyBytes)
            {
                throw new BadHttpRequestException($"The body is larger than the limit of {maxBodyBytes} bytes.", StatusCodes.Status413PayloadTooLarge);
            }

            using var body = await RequestBodyReader.ReadAsync(request.Body, streams, maxBodyBytes, cancellationToken);
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

            return new EnvelopeRead(null, SignProblems.BadRequest(e));
        }
        catch (EnvelopeFormatException e)
        {
            return new EnvelopeRead(null, SignProblems.InvalidEnvelope(e));
        }
    }
}
