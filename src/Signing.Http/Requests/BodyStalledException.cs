using Microsoft.AspNetCore.Http;

namespace Signing.Http.Requests;

/// <summary>
/// The 408 of a body that stopped arriving for <c>Signing:BodyStallTimeout</c> (<see cref="BodyStallClock"/>). It has a
/// type of its own because only this timeout is ours: Kestrel still waits for the rest of the body and would hold the
/// connection up to 5 s to drain it, so the endpoint closes the connection itself after the answer. Kestrel's own 408
/// (its minimum data rate) marks the request timed out, skips the drain and closes the connection once the answer has
/// gone, with nothing for the endpoint to do.
/// </summary>
internal sealed class BodyStalledException(TimeSpan timeout)
    : BadHttpRequestException(
        $"No part of the body arrived for {timeout.TotalSeconds:0.#} s; the request was cut off.", StatusCodes.Status408RequestTimeout);
