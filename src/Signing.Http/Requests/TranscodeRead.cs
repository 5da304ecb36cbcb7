using Microsoft.AspNetCore.Http.HttpResults;
using Signing.Transcoding;

namespace Signing.Http.Requests;

/// <summary>What <see cref="EnvelopeRequestReader.TranscodeAsync"/> made of a request: exactly one of signatures or a problem.</summary>
/// <param name="Result">The signatures of the body's canonical bytes, when the request carried a valid envelope.</param>
/// <param name="Problem">The client's mistake or the refusal, as the response to send, when it did not.</param>
internal readonly record struct TranscodeRead(TranscodeResult? Result, ProblemHttpResult? Problem);
