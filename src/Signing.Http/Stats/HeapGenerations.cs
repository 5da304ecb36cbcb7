namespace Signing.Http.Stats;

/// <summary>
/// The heap's parts by name rather than by the runtime's index (0, 1, 2, 3 for the large object heap, 4 for the
/// pinned object heap), so that a reader of the JSON needs no table.
/// </summary>
/// <param name="Gen0">Generation 0.</param>
/// <param name="Gen1">Generation 1.</param>
/// <param name="Gen2">Generation 2.</param>
/// <param name="Loh">The large object heap: objects of 85,000 bytes or more, such as a whole document as a string or an array.</param>
/// <param name="Poh">The pinned object heap.</param>
public sealed record HeapGenerations(GenerationStats Gen0, GenerationStats Gen1, GenerationStats Gen2, GenerationStats Loh, GenerationStats Poh);
