using System.Buffers;
using System.Text;
using Newtonsoft.Json;

namespace Signing.Tests.Strategies;

/// <summary>
/// The two ways of getting canonical bytes that the differential tests compare, and a readable account of where
/// they part.
/// </summary>
internal static class Canonical
{
    /// <summary>The reference: Newtonsoft itself, exactly as the <c>string</c> strategy calls it.</summary>
    public static byte[] FromNewtonsoft(WidgetEnvelope envelope) =>
        Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(envelope, CanonicalJson.Settings));

    /// <summary>
    /// <see cref="CanonicalUtf8Writer"/>'s bytes, through an output that lends spans no longer than asked for, so
    /// every chunk boundary the writer can meet is met.
    /// </summary>
    public static byte[] FromUtf8Writer(WidgetEnvelope envelope)
    {
        var output = new ExactSpanWriter();
        var length = CanonicalUtf8Writer.Write(envelope, output);
        var bytes = output.ToArray();
        Assert.Equal(bytes.Length, length);
        return bytes;
    }

    /// <summary>Fails with the first differing offset and the text around it when the writer and Newtonsoft differ.</summary>
    public static void AssertSame(WidgetEnvelope envelope, string because)
    {
        var difference = Difference(FromNewtonsoft(envelope), FromUtf8Writer(envelope));
        Assert.True(difference is null, $"{because}: {difference}");
    }

    /// <summary>Null when equal; otherwise where and how they differ.</summary>
    public static string? Difference(byte[] expected, byte[] actual)
    {
        var at = expected.AsSpan().CommonPrefixLength(actual);
        if (at == expected.Length && at == actual.Length)
        {
            return null;
        }

        var from = Math.Max(0, at - 24);
        return $"bytes differ at offset {at} (lengths {expected.Length} and {actual.Length}); " +
            $"Newtonsoft: {Excerpt(expected, from)}; utf8: {Excerpt(actual, from)}";
    }

    private static string Excerpt(byte[] bytes, int from) =>
        from >= bytes.Length ? "(end)" : Convert.ToHexString(bytes.AsSpan(from, Math.Min(48, bytes.Length - from)));

    // Every GetSpan gets exactly the size asked for (the least an IBufferWriter may give), from a fresh array.
    private sealed class ExactSpanWriter : IBufferWriter<byte>
    {
        private readonly List<byte[]> _chunks = [];
        private byte[] _current = [];

        public void Advance(int count)
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _current.Length);
            _chunks.Add(_current[..count]);
            _current = [];
        }

        public Memory<byte> GetMemory(int sizeHint = 0) => _current = new byte[Math.Max(sizeHint, 1)];

        public Span<byte> GetSpan(int sizeHint = 0) => _current = new byte[Math.Max(sizeHint, 1)];

        public byte[] ToArray() => _chunks.SelectMany(c => c).ToArray();
    }
}
