using System.Text.Json;
using SigningFunctions.TestHost.Rpc;

namespace SigningFunctions.TestHost;

/// <summary>
/// One HTTP-triggered function as the host routes it, read from the metadata the worker sent: the trigger's raw
/// binding JSON (<c>{"type":"httpTrigger","name":…,"route":…,"methods":[…],"authLevel":…}</c>) gives the route under
/// the host's prefix, the methods it answers, and the binding name the invocation's input goes under.
/// </summary>
/// <param name="FunctionId">The id the function was loaded under; invocations name it.</param>
/// <param name="Name">The function's name (its route when the trigger declares none).</param>
/// <param name="BindingName">The trigger parameter's binding name (<c>request</c> here).</param>
/// <param name="Template">The route template with the prefix, without a leading slash (<c>api/sign</c>).</param>
/// <param name="Methods">The HTTP methods, upper case; empty when the trigger accepts any.</param>
/// <param name="AuthLevel">The declared authorization level. Recorded, never enforced: see <see cref="FunctionsTestHost"/>.</param>
public sealed record FunctionRoute(string FunctionId, string Name, string BindingName, string Template, IReadOnlyList<string> Methods, string AuthLevel)
{
    /// <summary>Reads the function's HTTP trigger, if it has one.</summary>
    /// <param name="function">The metadata the worker sent and the host loaded.</param>
    /// <param name="routePrefix">host.json's <c>extensions.http.routePrefix</c>.</param>
    /// <returns>The route, or null for a function without an HTTP trigger.</returns>
    internal static FunctionRoute? From(RpcFunctionMetadata function, string routePrefix)
    {
        foreach (var raw in function.RawBindings)
        {
            using var binding = JsonDocument.Parse(raw);
            var root = binding.RootElement;
            if (!string.Equals(Text(root, "type"), "httpTrigger", StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            var route = (Text(root, "route") ?? function.Name).Trim('/');
            var template = routePrefix.Length == 0 ? route : $"{routePrefix}/{route}";
            var methods = root.TryGetProperty("methods", out var declared) && declared.ValueKind == JsonValueKind.Array
                ? declared.EnumerateArray().Select(m => m.GetString()!.ToUpperInvariant()).ToList()
                : [];
            return new FunctionRoute(
                function.FunctionId, function.Name, Text(root, "name") ?? "req", template, methods, Text(root, "authLevel") ?? "function");
        }

        return null;
    }

    /// <summary>Whether the trigger answers <paramref name="method"/>: any method when it lists none.</summary>
    /// <param name="method">The request's HTTP method.</param>
    /// <returns>True when the request is this function's.</returns>
    public bool Accepts(string method) =>
        Methods.Count == 0 || Methods.Contains(method, StringComparer.OrdinalIgnoreCase);

    private static string? Text(JsonElement element, string name)
    {
        foreach (var property in element.EnumerateObject())
        {
            if (string.Equals(property.Name, name, StringComparison.OrdinalIgnoreCase) && property.Value.ValueKind == JsonValueKind.String)
            {
                return property.Value.GetString();
            }
        }

        return null;
    }
}
