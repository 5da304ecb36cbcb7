using System.Text;
using Signing;
using Signing.Generation;
using Signing.Tests.Transcoding.Harness;
using Signing.Transcoding;

namespace Signing.Tests;

/// <summary>
/// One fixed envelope, parsed from JSON that exercises every canonicalization rule, against a canonical text and a
/// signature computed outside .NET. If this fails, the bytes we sign have changed, and every stored signature with them.
/// </summary>
public sealed class KnownAnswerTests
{
    // The input is deliberately non-canonical: whitespace, an upper-case GUID, escapes that
    // need not be escaped (\u0041, \/), non-ASCII written as escapes (including a surrogate pair), properties out of
    // order, an instant with a +02:00 offset, and fractional seconds with trailing zeros.
    private const string Input = """
        {
          "widgets": [
            {
              "id": "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
              "property0": "Gr\u00fc\u00dfe, \u6771\u4eac \ud83d\ude00",
              "property1": "say \"hi\"",
              "property2": "C:\\temp\\new",
              "property3": "bell\u0007tab\tnl\n",
              "property4": "\u0041\/B",
              "property5": "",
              "property6": "line\u2028sep",
              "property7": "<&>",
              "property8": "x",
              "property9": "y",
              "createdUtc": "2024-03-10T12:34:56.789+02:00"
            },
            {
              "property9": "9", "property8": "8", "property7": "7", "property6": "6", "property5": "5",
              "property4": "4", "property3": "3", "property2": "2", "property1": "1", "property0": "0",
              "id": "00000000-0000-0000-0000-000000000001",
              "createdUtc": "2021-06-15T08:00:00.1200000Z"
            }
          ]
        }
        """;

    // Written by hand from the rules in CanonicalJson, not captured from our output. The escapes here (\", \\,
    // \u0007, \t, \n, \u2028) are JSON escapes in the canonical text itself; the non-ASCII characters are raw UTF-8.
    private const string ExpectedCanonical = """
        {"widgets":[{"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","property0":"Grüße, 東京 😀","property1":"say \"hi\"","property2":"C:\\temp\\new","property3":"bell\u0007tab\tnl\n","property4":"A/B","property5":"","property6":"line\u2028sep","property7":"<&>","property8":"x","property9":"y","createdUtc":"2024-03-10T10:34:56.789Z"},{"id":"00000000-0000-0000-0000-000000000001","property0":"0","property1":"1","property2":"2","property3":"3","property4":"4","property5":"5","property6":"6","property7":"7","property8":"8","property9":"9","createdUtc":"2021-06-15T08:00:00.12Z"}]}
        """;

    // HMAC-SHA256 of ExpectedCanonical (UTF-8) under TestData.KeyBase64, and its length in bytes, from:
    //
    //   python3 - <<'EOF'
    //   import base64, hashlib, hmac
    //   key = base64.b64decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
    //   msg = r'''{"widgets":[{"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","property0":"Grüße, 東京 😀","property1":"say \"hi\"","property2":"C:\\temp\\new","property3":"bell\u0007tab\tnl\n","property4":"A/B","property5":"","property6":"line\u2028sep","property7":"<&>","property8":"x","property9":"y","createdUtc":"2024-03-10T10:34:56.789Z"},{"id":"00000000-0000-0000-0000-000000000001","property0":"0","property1":"1","property2":"2","property3":"3","property4":"4","property5":"5","property6":"6","property7":"7","property8":"8","property9":"9","createdUtc":"2021-06-15T08:00:00.12Z"}]}'''.encode("utf-8")
    //   print(hmac.new(key, msg, hashlib.sha256).hexdigest(), len(msg))
    //   EOF
    //
    // which printed "bcef1aa31e84b98683a7337554b31892d441a29a63ed6f449af7bcaa98573a30 577". OpenSSL agrees:
    //
    //   printf '%s' '<the same text>' | openssl dgst -sha256 -mac HMAC -macopt hexkey:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
    private const string ExpectedSignature = "bcef1aa31e84b98683a7337554b31892d441a29a63ed6f449af7bcaa98573a30";
    private const long ExpectedBytes = 577;

    // HMAC-SHA256 of the 14 bytes {"widgets":[]} under TestData.KeyBase64, from:
    //   python3 -c 'import base64, hashlib, hmac; print(hmac.new(base64.b64decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), b"{\"widgets\":[]}", hashlib.sha256).hexdigest())'
    private const string ExpectedEmptySignature = "a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c";

    [Fact]
    public void Expected_canonical_text_is_the_text_the_signature_was_computed_over()
    {
        // Guards the constants against each other: a stray edit to ExpectedCanonical would otherwise go unnoticed.
        Assert.Equal(ExpectedBytes, Encoding.UTF8.GetByteCount(ExpectedCanonical));
    }

    [Fact]
    public void Parsed_input_serializes_to_the_expected_canonical_bytes()
    {
        var envelope = TestData.Parse(Input);

        var canonical = TestData.CanonicalBytes(envelope);

        Assert.Equal(ExpectedCanonical, Encoding.UTF8.GetString(canonical));
        Assert.Equal(Encoding.UTF8.GetBytes(ExpectedCanonical), canonical);
    }

    public static TheoryData<string> StrategyNames() => [.. TestData.CreateStrategies().Names];

    [Theory]
    [MemberData(nameof(StrategyNames))]
    public void Strategy_produces_the_independently_computed_signature_and_length(string name)
    {
        var envelope = TestData.Parse(Input);

        var result = TestData.CreateStrategies()[name].Sign(envelope);

        Assert.Equal(ExpectedSignature, result.Signature);
        Assert.Equal(ExpectedBytes, result.BytesSigned);
    }

    [Fact]
    public void Every_listed_strategy_is_covered_by_the_known_answer()
    {
        var strategies = TestData.CreateStrategies();
        var envelope = TestData.Parse(Input);

        Assert.NotEmpty(strategies.Names);
        Assert.All(strategies.Names, name => Assert.Equal(new SignResult(ExpectedSignature, ExpectedBytes), strategies[name].Sign(envelope)));
    }

    [Fact]
    public void Every_strategy_signs_an_empty_envelope_with_the_independently_computed_signature()
    {
        var strategies = TestData.CreateStrategies();
        var empty = EnvelopeGenerator.Create(0, seed: 0);

        Assert.All(strategies.Names, name => Assert.Equal(new SignResult(ExpectedEmptySignature, 14), strategies[name].Sign(empty)));
    }

    // transcode signs the body's bytes as they arrive, not a parsed envelope, so it is not among the strategies above:
    // the same texts through it, in pieces of a byte, of a few bytes and of 4 KiB (the whole text): the input, which only
    // the tokenizer reads, and the canonical text, whose second widget is plain enough for the paths that copy widgets.
    [Theory]
    [InlineData(false, 1)]
    [InlineData(false, 7)]
    [InlineData(false, 4096)]
    [InlineData(true, 1)]
    [InlineData(true, 7)]
    [InlineData(true, 4096)]
    public async Task Transcode_signs_to_the_independently_computed_signature(bool canonical, int segmentBytes)
    {
        var body = Encoding.UTF8.GetBytes(canonical ? ExpectedCanonical : Input);

        var result = await new TranscodingSigner(TestData.Key).SignAsync(new SteppedPipeReader(body, segmentBytes));

        Assert.Equal((ExpectedSignature, ExpectedBytes, 2), (result.Signature, result.BytesSigned, result.WidgetCount));
    }

    [Fact]
    public async Task Transcode_signs_an_empty_envelope_to_the_independently_computed_signature()
    {
        var result = await new TranscodingSigner(TestData.Key).SignAsync(new SteppedPipeReader("{ \"widgets\" : [ ] }"u8.ToArray(), 4096));

        Assert.Equal((ExpectedEmptySignature, 14L, 0), (result.Signature, result.BytesSigned, result.WidgetCount));
    }
}
