using Newtonsoft.Json;

namespace Signing;

/// <summary>
/// One item of the envelope, shaped like the write-up's benchmark type so that our numbers compare with its numbers.
/// </summary>
/// <remarks>
/// Every property is required and non-null on input (<c>required</c> and the nullable annotations, enforced by
/// <see cref="EnvelopeParser"/>): a signing service must not fill in a default for a field the caller left out and
/// sign it as if the caller had sent it. The Newtonsoft attribute makes the writers refuse a null built in code.
/// </remarks>
[JsonObject(ItemRequired = Required.Always)]
public sealed class Widget
{
    /// <summary>The widget's identity; serialized in the 36-character "D" format whatever format the caller sent.</summary>
    public required Guid Id { get; init; }

    /// <summary>Free text; any Unicode, including characters that JSON must escape.</summary>
    public required string Property0 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property1 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property2 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property3 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property4 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property5 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property6 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property7 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property8 { get; init; }

    /// <inheritdoc cref="Property0"/>
    public required string Property9 { get; init; }

    /// <summary>
    /// When the widget was made. Input with an offset is converted to UTC and input without one is taken as UTC, so the
    /// signed bytes never depend on the server's time zone (see <see cref="CanonicalJson"/>).
    /// </summary>
    public required DateTime CreatedUtc { get; init; }
}
