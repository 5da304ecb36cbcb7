using System.Buffers;

namespace Signing.Transcoding;

/// <summary>
/// The canonical bytes of a widget's members that arrived before their turn, held until the members before them have
/// been written. Memory comes from a pool and grows only as far as one widget's out-of-order members need, so however
/// long the body, what is held is bounded by its largest widget; a body in canonical order never rents any.
/// </summary>
internal sealed class ParkedMembers(ArrayPool<byte> pool) : IBufferWriter<byte>, IDisposable
{
    private readonly int[] _starts = new int[WidgetMembers.Count];
    private readonly int[] _ends = new int[WidgetMembers.Count];
    private byte[] _buffer = [];
    private int _length;
    private int _start;
    private int _held;

    /// <summary>Forgets every held member, for the next widget; the memory stays for reuse.</summary>
    public void Clear()
    {
        _length = 0;
        _held = 0;
    }

    /// <summary>Starts holding a member: what is written from now on until <see cref="End"/> belongs to it.</summary>
    public void Begin() => _start = _length;

    /// <summary>Records what was written since <see cref="Begin"/> as member <paramref name="member"/>.</summary>
    public void End(int member)
    {
        _starts[member] = _start;
        _ends[member] = _length;
        _held |= 1 << member;
    }

    /// <summary>Whether member <paramref name="member"/> is held.</summary>
    public bool Holds(int member) => (_held & (1 << member)) != 0;

    /// <summary>The canonical bytes held for member <paramref name="member"/>.</summary>
    public ReadOnlySpan<byte> this[int member] => _buffer.AsSpan(_starts[member], _ends[member] - _starts[member]);

    /// <inheritdoc/>
    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _buffer.Length - _length);
        _length += count;
    }

    /// <inheritdoc/>
    public Memory<byte> GetMemory(int sizeHint = 0) => Grow(sizeHint).AsMemory(_length);

    /// <inheritdoc/>
    public Span<byte> GetSpan(int sizeHint = 0) => Grow(sizeHint).AsSpan(_length);

    /// <summary>Gives the memory back to the pool.</summary>
    public void Dispose()
    {
        if (_buffer.Length > 0)
        {
            pool.Return(_buffer);
            _buffer = [];
        }
    }

    private byte[] Grow(int sizeHint)
    {
        var needed = _length + Math.Max(sizeHint, 1);
        if (needed > _buffer.Length)
        {
            var larger = pool.Rent(Math.Max(needed, 2 * _buffer.Length));
            _buffer.AsSpan(0, _length).CopyTo(larger);
            Dispose();
            _buffer = larger;
        }

        return _buffer;
    }
}
