using Signing.Transcoding;

namespace Signing.Http.Requests;

/// <summary>
/// The strategy a request named: one that signs a parsed envelope (<see cref="Strategy"/>), or <c>transcode</c>,
/// which signs the body as it arrives and never builds an envelope.
/// </summary>
/// <param name="Name">The strategy's canonical name, as responses, logs and metrics give it.</param>
/// <param name="Strategy">The envelope strategy; <see langword="null"/> for <see cref="TranscodingSigner.StrategyName"/>.</param>
internal readonly record struct StrategyChoice(string Name, ISigningStrategy? Strategy);
