using System.IO.Compression;
using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Reading;

/// <summary>
/// What a body may be sent as: JSON in UTF-8 (any other charset is a 415), as it is or with exactly one of gzip, br or
/// deflate, which are undone before the body is read (any other or repeated coding is a 415). Compressed or not, the
/// same canonical bytes are signed, and the body limit applies to the decompressed bytes.
/// </summary>
public sealed class NegotiationTests(SigningServerFactory factory) : IClassFixture<SigningServerFactory>
{
    public static TheoryData<string> Codings() => ["gzip", "br", "deflate", "GZIP"];

    [Theory]
    [InlineData("application/json; charset=utf-16")]
    [InlineData("application/json; charset=latin1")]
    [InlineData("application/json; charset=iso-8859-1")]
    [InlineData("application/json; charset=\"utf-16le\"")]
    [InlineData("application/json; charset=utf8")]
    [InlineData("application/json; charset=utf-8; charset=latin1")]
    [InlineData("application/json; CHARSET=latin1")]
    public async Task A_charset_other_than_utf8_is_415_saying_only_utf8_is_accepted(string contentType)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", WithContentType(Bodies.Canonical(2, 1), contentType));

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
        Assert.Contains("Only UTF-8 is accepted", ProblemResponse.Detail(problem), StringComparison.Ordinal);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Fact]
    public async Task A_utf16_body_declared_as_utf16_is_refused_before_it_is_parsed()
    {
        using var client = factory.CreateClient();
        var body = System.Text.Encoding.Unicode.GetBytes(System.Text.Encoding.UTF8.GetString(Bodies.Canonical(2, 1)));

        using var response = await client.PostAsync("/api/sign", WithContentType(body, "application/json; charset=utf-16"));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
    }

    [Theory]
    [InlineData("application/json; charset=utf-8")]
    [InlineData("application/json; charset=UTF-8")]
    [InlineData("application/json; charset=\"utf-8\"")]
    [InlineData("application/json")]
    [InlineData("application/vnd.widgets+json")]
    [InlineData("application/vnd.widgets+json; charset=utf-8")]
    [InlineData("APPLICATION/JSON")]
    [InlineData("Application/Vnd.Widgets+JSON")]
    public async Task Json_in_utf8_is_signed(string contentType)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(3, 2);

        using var response = await client.PostAsync("/api/sign", WithContentType(body, contentType));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(TestKey.SignatureOf(body), await SignatureAsync(response));
    }

    [Theory]
    [InlineData("text/json")]
    [InlineData("text/plain")]
    [InlineData("text/x+json")]
    [InlineData("image/x+json")]
    [InlineData("application/jsonx")]
    [InlineData("application/x-json")]
    [InlineData("application/json+x")]
    public async Task Other_media_types_are_415(string contentType)
    {
        using var client = factory.CreateClient();

        using var response = await client.PostAsync("/api/sign", WithContentType(Bodies.Canonical(1, 1), contentType));

        await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
    }

    [Theory]
    [MemberData(nameof(Codings))]
    public async Task A_compressed_body_signs_the_same_bytes_as_the_plain_one(string coding)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(300, 3);

        foreach (var strategy in factory.StrategyNames)
        {
            using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Compressed(body, coding));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(TestKey.SignatureOf(body), await SignatureAsync(response));
        }

        Assert.Equal(0, factory.Pool.InUseBytes);
    }

    // .NET's decompressors do not report a stream that ends early (dotnet/runtime#47563; .NET 10 still returns what it
    // decoded): a body cut inside its data is refused by the parser as incomplete JSON, and a wrong checksum by the
    // decompressor, but a gzip or deflate body missing only its trailer (the checksum and, for gzip, the length), whose
    // document came through whole, is signed as that document. The README says so; should the runtime start to report
    // it, this fails and that line goes.
    [Theory]
    [InlineData("gzip", 8)]
    [InlineData("deflate", 4)]
    public async Task A_compressed_body_cut_inside_its_data_or_with_a_wrong_checksum_is_400_and_one_missing_only_its_trailer_is_signed(string coding, int trailer)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(30, 6);
        using var compressed = Compressed(body, coding);
        var whole = await compressed.ReadAsByteArrayAsync();

        byte[] wrongChecksum = [.. whole];
        wrongChecksum[^trailer] ^= 1;
        foreach (var refused in new[] { whole[..^(trailer + 8)], wrongChecksum })
        {
            using var content = Bodies.Json(refused);
            content.Headers.ContentEncoding.Add(coding);
            using var response = await client.PostAsync("/api/sign", content);
            await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        }

        using var withoutTrailer = Bodies.Json(whole[..^trailer]);
        withoutTrailer.Headers.ContentEncoding.Add(coding);
        using var signed = await client.PostAsync("/api/sign", withoutTrailer);
        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        Assert.Equal(TestKey.SignatureOf(body), await SignatureAsync(signed));
    }

    [Theory]
    [MemberData(nameof(Codings))]
    public async Task A_plain_body_labelled_compressed_is_400_not_signed(string coding)
    {
        using var client = factory.CreateClient();
        var content = Bodies.Json(Bodies.Canonical(30, 4));
        content.Headers.ContentEncoding.Add(coding);

        using var response = await client.PostAsync("/api/sign", content);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.BadRequest);
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    [Theory]
    [InlineData("compress")]
    [InlineData("zstd")]
    [InlineData("gzip, gzip")]
    [InlineData("gzip,br")]
    [InlineData("x-gzip")]
    public async Task An_unknown_or_repeated_coding_is_415(string coding)
    {
        using var client = factory.CreateClient();
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Compressed(Bodies.Canonical(5, 5), "gzip") };
        request.Content.Headers.ContentEncoding.Clear();
        request.Content.Headers.TryAddWithoutValidation("Content-Encoding", coding);

        using var response = await client.SendAsync(request);

        var problem = await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
        Assert.Contains("gzip, br or deflate", ProblemResponse.Detail(problem), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Two_content_encoding_headers_are_415()
    {
        using var client = factory.CreateClient();
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/sign") { Content = Compressed(Bodies.Canonical(5, 5), "gzip") };
        request.Content.Headers.TryAddWithoutValidation("Content-Encoding", "gzip");

        using var response = await client.SendAsync(request);

        await ProblemResponse.AssertAsync(response, HttpStatusCode.UnsupportedMediaType);
    }

    [Fact]
    public async Task Identity_is_the_body_as_it_is()
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(3, 6);
        var content = Bodies.Json(body);
        content.Headers.ContentEncoding.Add("identity");

        using var response = await client.PostAsync("/api/sign", content);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(TestKey.SignatureOf(body), await SignatureAsync(response));
    }

    /// <summary>The body compressed with <paramref name="coding"/> and labelled so.</summary>
    internal static ByteArrayContent Compressed(byte[] body, string coding)
    {
        using var buffer = new MemoryStream();
        using (Stream compressor = coding.ToUpperInvariant() switch
        {
            "GZIP" => new GZipStream(buffer, CompressionLevel.SmallestSize, leaveOpen: true),
            "BR" => new BrotliStream(buffer, CompressionLevel.SmallestSize, leaveOpen: true),
            "DEFLATE" => new ZLibStream(buffer, CompressionLevel.SmallestSize, leaveOpen: true),
            _ => throw new ArgumentOutOfRangeException(nameof(coding), coding, "gzip, br or deflate"),
        })
        {
            compressor.Write(body);
        }

        var content = Bodies.Json(buffer.ToArray());
        content.Headers.ContentEncoding.Add(coding);
        return content;
    }

    private static ByteArrayContent WithContentType(byte[] body, string contentType)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);
        return content;
    }

    private static async Task<string> SignatureAsync(HttpResponseMessage response)
    {
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return document.RootElement.GetProperty("signature").GetString()!;
    }
}
