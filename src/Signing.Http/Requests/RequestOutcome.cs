namespace Signing.Http.Requests;

/// <summary>How a sign request ended, as the totals and the meter count it.</summary>
public enum RequestOutcome
{
    /// <summary>Signed: a 200.</summary>
    Succeeded,

    /// <summary>Anything else that is not a refusal: a client mistake, a server fault, a cancellation.</summary>
    Failed,

    /// <summary>Refused with 503 because it did not fit in the in-flight memory budget; nothing of it was signed.</summary>
    Refused,
}
