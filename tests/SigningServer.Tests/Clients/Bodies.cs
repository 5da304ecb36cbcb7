using System.Net.Http.Headers;
using Newtonsoft.Json;
using Signing;
using Signing.Generation;

namespace SigningServer.Tests.Clients;

/// <summary>Request bodies and the content objects that carry them.</summary>
internal static class Bodies
{
    /// <summary>The seed of the envelope inside <see cref="Padded"/>; its canonical form is what gets signed.</summary>
    public const int PaddedSeed = 21;

    /// <summary>
    /// A generated envelope serialized with the canonical settings, so the body is itself the canonical document and
    /// its HMAC is the signature the server must return.
    /// </summary>
    public static byte[] Canonical(int widgetCount, int seed, GeneratedText text = GeneratedText.Plain) =>
        CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(EnvelopeGenerator.Create(widgetCount, seed, text), CanonicalJson.Settings));

    /// <summary>
    /// The one-widget envelope <see cref="PaddedSeed"/> followed by spaces up to exactly <paramref name="length"/> bytes:
    /// a valid body whose only fault, if any, is its size.
    /// </summary>
    public static byte[] Padded(int length)
    {
        var valid = Canonical(widgetCount: 1, seed: PaddedSeed);
        if (valid.Length > length)
        {
            throw new ArgumentOutOfRangeException(nameof(length), $"The envelope alone is {valid.Length} bytes.");
        }

        var body = new byte[length];
        valid.CopyTo(body, 0);
        body.AsSpan(valid.Length).Fill((byte)' ');
        return body;
    }

    /// <summary>UTF-8 of <paramref name="json"/>, for hand-written (often broken) bodies.</summary>
    public static byte[] Utf8(string json) => CanonicalJson.Utf8.GetBytes(json);

    /// <summary><paramref name="body"/> as <c>application/json</c> with a Content-Length.</summary>
    public static ByteArrayContent Json(byte[] body)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        return content;
    }

    /// <inheritdoc cref="Json(byte[])"/>
    public static ByteArrayContent Json(string json) => Json(Utf8(json));
}
