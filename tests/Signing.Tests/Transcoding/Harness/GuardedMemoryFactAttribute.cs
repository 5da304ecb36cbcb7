namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// A test that needs <see cref="GuardedMemory"/>: skipped, and reported as skipped, where the machine cannot guard
/// memory, instead of passing without having checked anything.
/// </summary>
internal sealed class GuardedMemoryFactAttribute : FactAttribute
{
    public GuardedMemoryFactAttribute()
    {
        if (!GuardedMemory.IsSupported)
        {
            Skip = "Guarded memory needs Linux's mmap and mprotect.";
        }
    }
}
