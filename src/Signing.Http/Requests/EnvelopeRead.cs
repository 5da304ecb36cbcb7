using Microsoft.AspNetCore.Http.HttpResults;

namespace Signing.Http.Requests;

/// <summary>What <see cref="EnvelopeRequestReader"/> made of a request: exactly one of an envelope or a problem.</summary>
/// <param name="Envelope">The parsed envelope, when the request carried a valid one.</param>
/// <param name="Problem">The client's mistake, as the response to send, when it did not.</param>
internal readonly record struct EnvelopeRead(WidgetEnvelope? Envelope, ProblemHttpResult? Problem);
