using System.Text;

namespace Signing.Generation;

/// <summary>
/// Deterministic envelopes: the same count and seed give the same widgets on every machine and runtime, so tests,
/// benchmarks and load tests all sign the same data. 3,000 plain widgets serialize to about 1.1 MB, the write-up's size.
/// </summary>
public static class EnvelopeGenerator
{
    private const string PlainAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    // Each entry is one "character" as a string, so surrogate pairs stay whole unless a lone half is meant.
    private static readonly string[] AwkwardPieces =
    [
        "a", "Z", "7", " ", "\"", "\\", "/", "'", "<", ">", "&", "\0", "\b", "\f", "\n", "\r", "\t", "\u001f", "\u007f",
        "\u0085", "\u00a0", "\u00e9", "\u00df", "\u4e2d", "\u2028", "\u2029", "\ufeff", "\uffff", "\U0001F600", "\U00010000",
        "\U0010FFFF", "\ud800", "\udfff",
    ];

    private static readonly DateTime Epoch = new(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    /// <summary>Makes <paramref name="widgetCount"/> widgets from <paramref name="seed"/>.</summary>
    public static WidgetEnvelope Create(int widgetCount, int seed, GeneratedText text = GeneratedText.Plain)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(widgetCount);

        // Random(int) is documented to give the same sequence for the same seed; that is all this needs.
#pragma warning disable CA5394 // Not for security: test data must be reproducible.
        var random = new Random(seed);
        var widgets = new Widget[widgetCount];
        for (var i = 0; i < widgetCount; i++)
        {
            widgets[i] = new Widget
            {
                Id = NextGuid(random),
                Property0 = NextString(random, text),
                Property1 = NextString(random, text),
                Property2 = NextString(random, text),
                Property3 = NextString(random, text),
                Property4 = NextString(random, text),
                Property5 = NextString(random, text),
                Property6 = NextString(random, text),
                Property7 = NextString(random, text),
                Property8 = NextString(random, text),
                Property9 = NextString(random, text),
                CreatedUtc = NextInstant(random),
            };
        }
#pragma warning restore CA5394

        return new WidgetEnvelope { Widgets = widgets };
    }

#pragma warning disable CA5394 // Not for security: see Create.
    private static Guid NextGuid(Random random)
    {
        Span<byte> bytes = stackalloc byte[16];
        random.NextBytes(bytes);
        return new Guid(bytes);
    }

    private static string NextString(Random random, GeneratedText text)
    {
        var length = random.Next(8, 18);
        var builder = new StringBuilder(length);
        for (var i = 0; i < length; i++)
        {
            if (text == GeneratedText.Plain)
            {
                builder.Append(PlainAlphabet[random.Next(PlainAlphabet.Length)]);
            }
            else
            {
                builder.Append(AwkwardPieces[random.Next(AwkwardPieces.Length)]);
            }
        }

        return builder.ToString();
    }

    // Whole seconds, milliseconds or full 100 ns ticks, at random, so the trimming of fractional zeros is exercised.
    private static DateTime NextInstant(Random random)
    {
        var instant = Epoch.AddSeconds(random.Next(0, 5 * 365 * 24 * 3600));
        return random.Next(3) switch
        {
            0 => instant,
            1 => instant.AddMilliseconds(random.Next(1, 1000)),
            _ => instant.AddTicks(random.Next(1, (int)TimeSpan.TicksPerSecond)),
        };
    }
#pragma warning restore CA5394
}
