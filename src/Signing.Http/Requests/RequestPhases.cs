using System.Diagnostics;

namespace Signing.Http.Requests;

/// <summary>
/// What a sign or verify request has done so far, filled in phase by phase as it happens, so that the caller can
/// report the cost and sizes of whatever part it reached, whether it ended in a result, a problem or an exception.
/// </summary>
internal sealed class RequestPhases
{
    private readonly long _started = Stopwatch.GetTimestamp();

    /// <summary>Time since the request's handling started.</summary>
    public TimeSpan Elapsed => Stopwatch.GetElapsedTime(_started);

    /// <summary>Time to drain the body, from the start; <see langword="null"/> until the body is read.</summary>
    public TimeSpan? Read { get; set; }

    /// <summary>Bytes of the body as sent; zero until the body is read.</summary>
    public long BodyBytes { get; set; }

    /// <summary>Parsing the envelope; <see langword="null"/> if parsing never started.</summary>
    public PhaseCost? Parse { get; set; }

    /// <summary>Running the strategy (for verify, every key's); <see langword="null"/> if signing never started.</summary>
    public PhaseCost? Sign { get; set; }

    /// <summary>The phases as the cost headers and telemetry take them.</summary>
    public SignCost Cost => new(Read, Parse, Sign);
}
