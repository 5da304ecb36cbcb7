using Microsoft.AspNetCore.Http;

namespace Signing.Http.Requests;

/// <summary>
/// The 408 of a body that stopped arriving (<see cref="BodyStallClock"/>): for <c>Signing:BodyStallTimeout</c>, or for
/// a beat while the in-flight budget was full. It has a type of its own because only this timeout is ours: Kestrel
/// still waits for the rest of the body and would hold the connection up to 5 s to drain it, so the endpoint closes
/// the connection itself after the answer. Kestrel's own 408 (its minimum data rate) marks the request timed out, skips
/// the drain and closes the connection once the answer has gone, with nothing for the endpoint to do.
/// </summary>
internal sealed class BodyStalledException(BodyStallClock clock)
    : BadHttpRequestException(Describe(clock), StatusCodes.Status408RequestTimeout)
{
    private static string Describe(BodyStallClock clock) => clock switch
    {
        { CutForHolding: true } =>
            $"The body arrived too slowly for the memory it holds (at its rate, more than {clock.HoldWindow.TotalSeconds:0.#} s for what it holds) while the server was full; the request was cut off to make room.",
        { CutForRoom: true } =>
            $"The body brought less than {BodyStallClock.ProgressBytes / 1024} KiB in {clock.Beat.TotalSeconds:0.##} s while the server was full; the request was cut off to make room.",
        _ => $"The body brought less than {BodyStallClock.ProgressBytes / 1024} KiB in {clock.Timeout.TotalSeconds:0.#} s; the request was cut off.",
    };
}
