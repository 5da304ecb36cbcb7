using System.Text;
using Microsoft.IO;
using Signing;

namespace Signing.Tests;

/// <summary>Keys, strategies and small helpers shared by the tests; nothing here computes an expected value.</summary>
internal static class TestData
{
    /// <summary>The 32 bytes 0x00, 0x01, …, 0x1f, the known-answer key.</summary>
    public const string KeyBase64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    public static byte[] KeyBytes => Convert.FromBase64String(KeyBase64);

    public static SigningKey Key { get; } = SigningKey.FromBase64(KeyBase64);

    public static SigningStrategies CreateStrategies(RecyclableMemoryStreamManager? streams = null) =>
        SigningStrategies.CreateBuiltIn(Key, streams ?? CreateStreams());

    /// <summary>A pool as a server would configure it: the library's block sizes, bounded free pools.</summary>
    public static RecyclableMemoryStreamManager CreateStreams() => new(new RecyclableMemoryStreamManager.Options
    {
        MaximumSmallPoolFreeBytes = 64L * 1024 * 1024,
        MaximumLargePoolFreeBytes = 8L * 1024 * 1024,
    });

    /// <summary>Bytes held by streams of <paramref name="streams"/> that are not yet disposed.</summary>
    public static long InUseBytes(RecyclableMemoryStreamManager streams) => streams.SmallPoolInUseSize + streams.LargePoolInUseSize;

    public static WidgetEnvelope Parse(string json) => Parse(Encoding.UTF8.GetBytes(json));

    public static WidgetEnvelope Parse(byte[] utf8Json) => EnvelopeParser.Parse(utf8Json);

    /// <summary>The canonical bytes, through the library's public writer.</summary>
    public static byte[] CanonicalBytes(WidgetEnvelope envelope)
    {
        using var stream = new MemoryStream();
        CanonicalJson.Write(envelope, stream);
        return stream.ToArray();
    }

    /// <summary>A widget body with every property set; <paramref name="createdUtc"/> is the raw JSON value.</summary>
    public static string WidgetJson(string createdUtc = "\"2024-03-10T10:34:56.789Z\"", string id = "\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\"") =>
        "{\"id\":" + id + ",\"property0\":\"a\",\"property1\":\"b\",\"property2\":\"c\",\"property3\":\"d\",\"property4\":\"e\","
        + "\"property5\":\"f\",\"property6\":\"g\",\"property7\":\"h\",\"property8\":\"i\",\"property9\":\"j\",\"createdUtc\":" + createdUtc + "}";

    public static string EnvelopeJson(params string[] widgets) => "{\"widgets\":[" + string.Join(',', widgets) + "]}";

    public static Widget Widget(string property0 = "a", string property5 = "f", DateTime? createdUtc = null) => new()
    {
        Id = new Guid("6f9619ff-8b86-d011-b42d-00cf4fc964ff"),
        Property0 = property0,
        Property1 = "b",
        Property2 = "c",
        Property3 = "d",
        Property4 = "e",
        Property5 = property5,
        Property6 = "g",
        Property7 = "h",
        Property8 = "i",
        Property9 = "j",
        CreatedUtc = createdUtc ?? new DateTime(2024, 3, 10, 10, 34, 56, 789, DateTimeKind.Utc),
    };
}
