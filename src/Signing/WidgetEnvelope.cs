using Newtonsoft.Json;

namespace Signing;

/// <summary>The request body: the widgets to sign, serialized as <c>{"widgets":[…]}</c>.</summary>
public sealed class WidgetEnvelope
{
    /// <summary>The widgets, in the order the caller sent them; order is part of what is signed.</summary>
    [JsonProperty(Required = Required.Always)]
    public required IReadOnlyList<Widget> Widgets { get; init; }
}
