using System.Buffers;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>The shared pool, counting what is rented and returned, so a test can see that every array came back.</summary>
internal sealed class CountingArrayPool : ArrayPool<byte>
{
    private int _rents;
    private int _returns;

    public int Rents => Volatile.Read(ref _rents);

    public int Outstanding => Volatile.Read(ref _rents) - Volatile.Read(ref _returns);

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _rents);
        return Shared.Rent(minimumLength);
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Increment(ref _returns);
        Shared.Return(array, clearArray);
    }
}
