namespace Signing.Http.Memory;

/// <summary>
/// A request's body grew past what the <see cref="InFlightBudget"/> could take: the request is refused with 503 as
/// soon as that happens, before it holds more.
/// </summary>
public sealed class InFlightBudgetExceededException : Exception
{
    /// <summary>Creates the exception.</summary>
    public InFlightBudgetExceededException()
        : base("The request does not fit in the in-flight memory budget.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    public InFlightBudgetExceededException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and a cause.</summary>
    public InFlightBudgetExceededException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
