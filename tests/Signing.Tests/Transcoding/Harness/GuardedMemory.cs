using System.Runtime.InteropServices;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// Bytes placed against a page the process may not touch, on Linux: a read one byte past their end (or, placed the
/// other way, one byte before their start) stops the test run with a fault, which vector loads that miss their bounds
/// check would otherwise get away with, reading whatever memory follows.
/// </summary>
internal sealed unsafe partial class GuardedMemory : IDisposable
{
    private const int ProtectNone = 0;
    private const int ProtectReadWrite = 3;
    private const int MapPrivateAnonymous = 0x02 | 0x20;

    private readonly nint _mapping;
    private readonly nuint _length;
    private readonly byte* _bytes;
    private readonly int _count;

    private GuardedMemory(ReadOnlySpan<byte> bytes, bool guardAfter)
    {
        var page = (nuint)Environment.SystemPageSize;
        var dataPages = ((nuint)bytes.Length + page - 1) / page;
        _length = (dataPages + 2) * page;
        _mapping = Map(0, _length, ProtectReadWrite, MapPrivateAnonymous, -1, 0);
        if (_mapping == -1 || Protect(_mapping, page, ProtectNone) != 0 ||
            Protect(_mapping + (nint)((dataPages + 1) * page), page, ProtectNone) != 0)
        {
            throw new InvalidOperationException($"mmap or mprotect failed: {Marshal.GetLastPInvokeError()}.");
        }

        var first = (byte*)_mapping + page;
        _bytes = guardAfter ? first + (dataPages * page) - (nuint)bytes.Length : first;
        _count = bytes.Length;
        bytes.CopyTo(new Span<byte>(_bytes, _count));
    }

    /// <summary>Whether this machine can guard memory so (Linux).</summary>
    public static bool IsSupported => OperatingSystem.IsLinux();

    /// <summary>The bytes, as placed.</summary>
    public ReadOnlySpan<byte> Bytes => new(_bytes, _count);

    /// <summary><paramref name="bytes"/> ending where an untouchable page begins.</summary>
    public static GuardedMemory EndingAtAGuard(ReadOnlySpan<byte> bytes) => new(bytes, guardAfter: true);

    /// <summary><paramref name="bytes"/> starting where an untouchable page ends.</summary>
    public static GuardedMemory StartingAtAGuard(ReadOnlySpan<byte> bytes) => new(bytes, guardAfter: false);

    public void Dispose() => _ = Unmap(_mapping, _length);

    [LibraryImport("libc", EntryPoint = "mmap", SetLastError = true)]
    private static partial nint Map(nint address, nuint length, int protection, int flags, int file, nint offset);

    [LibraryImport("libc", EntryPoint = "mprotect", SetLastError = true)]
    private static partial int Protect(nint address, nuint length, int protection);

    [LibraryImport("libc", EntryPoint = "munmap", SetLastError = true)]
    private static partial int Unmap(nint address, nuint length);
}
