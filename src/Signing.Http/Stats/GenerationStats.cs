namespace Signing.Http.Stats;

/// <summary>One part of the heap around the most recent collection (<see cref="GCGenerationInfo"/>).</summary>
/// <param name="SizeBeforeBytes">Its size when the collection started: for the large object heap, how far it grew between collections.</param>
/// <param name="SizeAfterBytes">Its size when the collection finished.</param>
/// <param name="FragmentationBeforeBytes">Free space inside it when the collection started.</param>
/// <param name="FragmentationAfterBytes">Free space inside it when the collection finished.</param>
public sealed record GenerationStats(long SizeBeforeBytes, long SizeAfterBytes, long FragmentationBeforeBytes, long FragmentationAfterBytes);
