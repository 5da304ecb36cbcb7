using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;

namespace Signing.Http;

/// <summary>
/// <c>POST /api/sign</c>, written once: SigningServer maps it as a minimal API and the Azure Functions app calls it
/// from its <c>sign</c> function, so both hosts parse, choose and fail in exactly the same way.
/// </summary>
public sealed class SignEndpoint(SigningStrategies strategies, BufferPool pool, SigningTelemetry telemetry, IOptions<SigningOptions> options)
{
    private readonly long _maxBodyBytes = options.Value.MaxRequestBodyBytes;

    /// <summary>
    /// Signs the envelope in <paramref name="request"/>'s body with the strategy named by <c>?strategy=</c>
    /// (default <see cref="SigningStrategies.DefaultName"/>). Client mistakes come back as problem details with a
    /// 4xx status; only a fault of the server itself escapes as an exception.
    /// </summary>
    /// <remarks>
    /// Once the strategy is known, every response carries what the request cost (<see cref="SignCostHeaders"/>) and
    /// every outcome is counted against that strategy (<see cref="SigningTelemetry"/>). Parsing and signing are
    /// synchronous, so their allocations are read from the request's own thread and belong to this request alone.
    /// </remarks>
    public async Task<IResult> HandleAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);

        var requested = request.Query["strategy"];
        if (requested.Count > 1)
        {
            return SignProblems.StrategyGivenTwice();
        }

        var name = string.IsNullOrEmpty(requested.ToString()) ? SigningStrategies.DefaultName : requested.ToString();
        if (!strategies.TryGet(name, out var strategy))
        {
            return SignProblems.UnknownStrategy(name, strategies.Names);
        }

        var started = Stopwatch.GetTimestamp();
        TimeSpan? read = null;
        PhaseCost? parse = null;
        PhaseCost? sign = null;
        var succeeded = false;
        try
        {
            if (!request.HasJsonContentType())
            {
                return SignProblems.UnsupportedMediaType(request.ContentType);
            }

            if (request.ContentLength > _maxBodyBytes)
            {
                throw new BadHttpRequestException($"The body is larger than the limit of {_maxBodyBytes} bytes.", StatusCodes.Status413PayloadTooLarge);
            }

            WidgetEnvelope envelope;
            using (var body = await RequestBodyReader.ReadAsync(request.Body, pool, _maxBodyBytes, cancellationToken))
            {
                read = Stopwatch.GetElapsedTime(started);
                if (body.WrittenCount == 0)
                {
                    return SignProblems.EmptyBody();
                }

                var parsing = PhaseMark.Start();
                try
                {
                    envelope = EnvelopeParser.Parse(body.WrittenSpan);
                }
                finally
                {
                    parse = parsing.Stop();
                }
            }

            cancellationToken.ThrowIfCancellationRequested();
            SignResult result;
            var signing = PhaseMark.Start();
            try
            {
                result = strategy.Sign(envelope);
            }
            finally
            {
                sign = signing.Stop();
            }

            succeeded = true;
            return TypedResults.Ok(new SignResponse(result.Signature, strategy.Name, "HMAC-SHA256", envelope.Widgets.Count, result.BytesSigned));
        }
        catch (BadHttpRequestException e)
        {
            return SignProblems.BadRequest(e);
        }
        catch (EnvelopeFormatException e)
        {
            return SignProblems.InvalidEnvelope(e);
        }
        finally
        {
            // Headers go on now, before the host executes the result; a fault that escapes is answered by the
            // exception handler, which clears them along with everything else.
            var cost = new SignCost(read, parse, sign);
            SignCostHeaders.Write(request.HttpContext.Response.Headers, cost);
            telemetry.Record(strategy.Name, cost, Stopwatch.GetElapsedTime(started), succeeded);
        }
    }
}
