namespace Signing.Http.Requests;

/// <summary>
/// What one sign request cost the server, phase by phase. A phase the request never reached (a body that was too
/// large was never parsed; an envelope that failed to parse was never signed) is <see langword="null"/>.
/// </summary>
/// <param name="Read">
/// Time to drain the body, from the start of the request. Its allocations are not measured: the read is asynchronous
/// and may continue on another thread, whose counter would mix in other requests.
/// </param>
/// <param name="Parse">Parsing the envelope from the drained body.</param>
/// <param name="Sign">Running the strategy.</param>
internal readonly record struct SignCost(TimeSpan? Read, PhaseCost? Parse, PhaseCost? Sign);
