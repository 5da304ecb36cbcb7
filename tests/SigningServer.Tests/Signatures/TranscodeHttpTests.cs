using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Signing.Http;
using Signing.Tests.Hostile;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>
/// <c>transcode</c> over HTTP answers what the object path answers: for every hostile body the same status, title
/// and path as <c>utf8</c>, and for valid bodies the same signature, also with a token longer than any buffer on the
/// way and over a real socket.
/// </summary>
public sealed class TranscodeHttpTests(KestrelStallFactory factory) : IClassFixture<KestrelStallFactory>
{
    public static TheoryData<string> Cases => HostileCorpus.Names();

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Every_hostile_body_gets_the_object_paths_answer(string name)
    {
        var hostile = HostileCorpus.Get(name);
        using var client = factory.CreateClient();

        var transcoded = await AnswerAsync(client, "transcode", hostile.Body);
        var parsed = await AnswerAsync(client, "utf8", hostile.Body);

        Assert.Equal(parsed, transcoded);
        Assert.Equal(HttpStatusCode.BadRequest, transcoded.Status);
        Assert.Equal(0, factory.Budget.InUseBytes);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2_500)]
    public async Task A_valid_body_signs_alike_through_both_paths(int widgetCount)
    {
        using var client = factory.CreateClient();
        var body = Bodies.Canonical(widgetCount, seed: 41, Signing.Generation.GeneratedText.Awkward);

        var transcoded = await AnswerAsync(client, "transcode", body);

        Assert.Equal(HttpStatusCode.OK, transcoded.Status);
        Assert.Equal(TestKey.SignatureOf(body), transcoded.Signature);
        Assert.Equal(await AnswerAsync(client, "utf8", body), transcoded);
    }

    [Fact]
    public async Task A_string_longer_than_every_buffer_on_the_way_signs()
    {
        using var client = factory.CreateStreamingClient();
        // A 3 MB property, out of order so that it is also held aside until its widget ends.
        var widget = JsonSerializer.Deserialize<Dictionary<string, JsonElement>>(Bodies.Canonical(1, 5).AsSpan()[12..^2])!;
        var longValue = new string('x', 3_000_000);
        var members = widget.Keys.Reverse().Select(k => $"\"{k}\":" + (k == "property0" ? $"\"{longValue}\"" : widget[k].GetRawText()));
        var body = Bodies.Utf8("{\"widgets\":[{" + string.Join(',', members) + "}]}");

        var transcoded = await AnswerAsync(client, "transcode", body);

        Assert.Equal(HttpStatusCode.OK, transcoded.Status);
        Assert.Equal(await AnswerAsync(client, "utf8", body), transcoded);
    }

    [Fact]
    public async Task A_body_sent_a_byte_at_a_time_over_a_socket_signs()
    {
        using var client = factory.CreateStreamingClient();
        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var body = Bodies.Canonical(widgetCount: 2, seed: 43, Signing.Generation.GeneratedText.Awkward);

        await connection.SendAsync(RawHttpConnection.PostHead(
            client.BaseAddress!, "/api/sign?strategy=transcode", $"Content-Length: {body.Length.ToString(CultureInfo.InvariantCulture)}\r\n"));
        foreach (var b in body)
        {
            await connection.SendAsync(new[] { b });
        }

        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));
        Assert.StartsWith("HTTP/1.1 200", answer, StringComparison.Ordinal);
        Assert.Contains(TestKey.SignatureOf(body), answer, StringComparison.Ordinal);
    }

    private static async Task<Answer> AnswerAsync(HttpClient client, string strategy, byte[] body)
    {
        using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(body));
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var root = document.RootElement;
        return response.StatusCode == HttpStatusCode.OK
            ? new Answer(response.StatusCode, root.GetProperty("signature").GetString(), null, null, root.GetProperty("widgetCount").GetInt32())
            : new Answer(
                response.StatusCode,
                null,
                root.GetProperty("title").GetString(),
                root.TryGetProperty("path", out var path) ? path.GetString() : null,
                0);
    }

    private sealed record Answer(HttpStatusCode Status, string? Signature, string? Title, string? Path, int WidgetCount);
}
