using System.Buffers;
using Microsoft.AspNetCore.Connections;

namespace Signing.Http.Memory;

/// <summary>
/// Gives Kestrel a <see cref="ReceiveBlockPool"/> wherever it asks for memory, once registered as its
/// <see cref="IMemoryPoolFactory{T}"/> (<see cref="SigningKestrelLimits.ApplyReceiveBlocks"/>).
/// </summary>
internal sealed class ReceiveBlockPoolFactory : IMemoryPoolFactory<byte>
{
    /// <summary>A new pool, one for each transport (or other user) that asks.</summary>
    public MemoryPool<byte> Create(MemoryPoolOptions? options = null) => new ReceiveBlockPool();
}
