using System.Diagnostics;
using System.Net.Http.Headers;
using System.Text;

namespace SigningFunctions.Tests;

/// <summary>
/// The key the workers sign with, bodies, and HMACs computed outside .NET: constants from the python3 commands beside
/// them, and <see cref="PythonHmacAsync"/> for bodies made during the test.
/// </summary>
internal static class KnownAnswers
{
    /// <summary>The 32 bytes 0x00 … 0x1f: python3 -c "import base64; print(base64.b64encode(bytes(range(32))).decode())".</summary>
    public const string KeyBase64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    /// <summary>Two widgets in canonical form (src/Signing.Payload --widgets 2 --seed 1), one instant with milliseconds.</summary>
    public const string TwoWidgets =
        """{"widgets":[{"id":"8286d046-9740-a3e4-95cf-ff46699c73c4","property0":"mrr6FJXxKx","property1":"z2isrA9x1Df","property2":"Q9qXappdPVgKV","property3":"YJ6F8enCHNFTiT","property4":"2xNGLa7Yw6HeTDdWX","property5":"Amz1vFB2O2d","property6":"HHWdWiSEKQb","property7":"KI09T9o0r6hqKBB","property8":"ESMF5dz9H","property9":"r4DTMuLFqnOBjONm","createdUtc":"2023-01-02T03:51:38Z"},{"id":"ce79989b-7f7d-bf6b-d1ae-7f5f6c3c28d4","property0":"txXtxfEUX3","property1":"s71S2nZb","property2":"VX2UUqzP8UXJF","property3":"dyNbwKOAJR6JGegzp","property4":"b66W5DZGqyWD","property5":"3mAXdoMmQSUOl","property6":"KkUtJo6sJAH","property7":"KBqeZoFvDgFHCKczK","property8":"lITqOgWFMZjKdA","property9":"keK6w2qIzT","createdUtc":"2023-04-11T13:54:42.213Z"}]}""";

    /// <summary>
    /// <see cref="TwoWidgets"/> as a client might send it: indented, the second widget's members in another order and
    /// its instant with an offset. It canonicalizes to the same bytes, so it must sign to the same value.
    /// </summary>
    public const string TwoWidgetsLoosely = """
        { "widgets": [
          { "id": "8286d046-9740-a3e4-95cf-ff46699c73c4", "property0": "mrr6FJXxKx", "property1": "z2isrA9x1Df", "property2": "Q9qXappdPVgKV",
            "property3": "YJ6F8enCHNFTiT", "property4": "2xNGLa7Yw6HeTDdWX", "property5": "Amz1vFB2O2d", "property6": "HHWdWiSEKQb",
            "property7": "KI09T9o0r6hqKBB", "property8": "ESMF5dz9H", "property9": "r4DTMuLFqnOBjONm", "createdUtc": "2023-01-02T03:51:38Z" },
          { "createdUtc": "2023-04-11T15:54:42.213+02:00", "property9": "keK6w2qIzT", "property8": "lITqOgWFMZjKdA", "property7": "KBqeZoFvDgFHCKczK",
            "property6": "KkUtJo6sJAH", "property5": "3mAXdoMmQSUOl", "property4": "b66W5DZGqyWD", "property3": "dyNbwKOAJR6JGegzp",
            "property2": "VX2UUqzP8UXJF", "property1": "s71S2nZb", "property0": "txXtxfEUX3", "id": "ce79989b-7f7d-bf6b-d1ae-7f5f6c3c28d4" }
        ] }
        """;

    /// <summary>python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(32)), open('two.json','rb').read(), hashlib.sha256).hexdigest())" over <see cref="TwoWidgets"/> (733 bytes).</summary>
    public const string TwoWidgetsSignature = "b210b222132c49f62138c657bc1a6e40df58274d19a8beaf8a07a0ce2a0cf78f";

    /// <summary>A JSON request body.</summary>
    public static ByteArrayContent Json(string json) => Json(Encoding.UTF8.GetBytes(json));

    /// <summary>A JSON request body.</summary>
    public static ByteArrayContent Json(byte[] json)
    {
        var content = new ByteArrayContent(json);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        return content;
    }

    /// <summary>HMAC-SHA256 of <paramref name="body"/> under the test key, computed by python3's hmac module.</summary>
    public static async Task<string> PythonHmacAsync(byte[] body)
    {
        var start = new ProcessStartInfo("python3")
        {
            ArgumentList = { "-c", "import hmac,hashlib,sys; print(hmac.new(bytes(range(32)), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())" },
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        using var python = Process.Start(start)!;
        await python.StandardInput.BaseStream.WriteAsync(body);
        python.StandardInput.Close();
        var hex = (await python.StandardOutput.ReadToEndAsync()).Trim();
        await python.WaitForExitAsync();
        Assert.True(python.ExitCode == 0 && hex.Length == 64, $"python3 exited with {python.ExitCode} and wrote '{hex}'.");
        return hex;
    }
}
