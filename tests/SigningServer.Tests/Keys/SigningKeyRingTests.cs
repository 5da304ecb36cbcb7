using Microsoft.IO;
using Signing;
using Signing.Http.Keys;
using Signing.Transcoding;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Keys;

/// <summary>
/// <see cref="SigningKeyRing"/> built directly: the active id must be one of the keys (exactly, not after case
/// folding), the active key comes first and signs, and the others follow in ordinal order of id.
/// </summary>
public sealed class SigningKeyRingTests
{
    // Bytes 100 to 131, a key other than TestKey: python3 -c "import base64; print(base64.b64encode(bytes(range(100,132))).decode())"
    private const string OtherKeyBase64 = "ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM=";

    // python3 -c "import hmac,hashlib; print(hmac.new(bytes(range(32)), b'{\"widgets\":[]}', hashlib.sha256).hexdigest())"
    private const string EmptyEnvelopeSignatureUnderTestKey = "a27a2c97a6282b50b2a337292e613a67ea9ff9d5c3d54112bb36f0dc1fd1129c";

    private static readonly RecyclableMemoryStreamManager Streams = new();

    [Theory]
    [InlineData("c")]
    [InlineData("A")]
    [InlineData("")]
    [InlineData("a ")]
    public void Active_id_not_among_the_keys_is_refused_naming_it(string activeKeyId)
    {
        var exception = Assert.Throws<ArgumentException>(() => new SigningKeyRing(activeKeyId, Keys(("a", TestKey.Base64), ("b", OtherKeyBase64)), Streams));

        Assert.Equal("activeKeyId", exception.ParamName);
        Assert.StartsWith($"The active key id '{activeKeyId}' is not among the keys.", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Active_id_among_the_keys_signs_and_comes_first_then_the_others_by_ordinal_id()
    {
        var ring = new SigningKeyRing("b", Keys(("c", OtherKeyBase64), ("b", TestKey.Base64), ("a", OtherKeyBase64), ("B", OtherKeyBase64)), Streams);

        Assert.Equal("b", ring.ActiveKeyId);
        Assert.Equal(["b", "B", "a", "c"], ring.Keys.Select(k => k.KeyId));
        Assert.Same(ring.Active, ring.Keys[0].Strategies);
        Assert.Equal([.. ring.Active.Names, TranscodingSigner.StrategyName], ring.StrategyNames);
        Assert.Equal(EmptyEnvelopeSignatureUnderTestKey, ring.Active[SigningStrategies.DefaultName].Sign(new WidgetEnvelope { Widgets = [] }).Signature);
    }

    [Fact]
    public void Missing_arguments_are_refused_by_name()
    {
        var keys = Keys(("a", TestKey.Base64));

        Assert.Equal("activeKeyId", Assert.Throws<ArgumentNullException>(() => new SigningKeyRing(null!, keys, Streams)).ParamName);
        Assert.Equal("keys", Assert.Throws<ArgumentNullException>(() => new SigningKeyRing("a", null!, Streams)).ParamName);
        Assert.Equal("streams", Assert.Throws<ArgumentNullException>(() => new SigningKeyRing("a", keys, null!)).ParamName);
    }

    private static Dictionary<string, SigningKey> Keys(params (string Id, string Base64)[] keys) =>
        keys.ToDictionary(k => k.Id, k => SigningKey.FromBase64(k.Base64), StringComparer.Ordinal);
}
