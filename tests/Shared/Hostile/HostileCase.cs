namespace Signing.Tests.Hostile;

/// <summary>One generated hostile request body, named so that a failing case says which one it was.</summary>
/// <param name="Name">Unique and stable for a seed: <c>category/variant</c>.</param>
/// <param name="Category">Which kind of hostility the case belongs to (see <see cref="HostileCorpus"/>).</param>
/// <param name="Body">The bytes sent as an <c>application/json</c> body.</param>
internal sealed record HostileCase(string Name, string Category, byte[] Body)
{
    public override string ToString() => $"{Name} ({Body.Length} bytes)";
}
