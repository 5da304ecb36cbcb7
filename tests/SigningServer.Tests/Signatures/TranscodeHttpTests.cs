using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Signing.Http;
using Signing.Tests.Bodies;
using Signing.Tests.Hostile;
using Signing.Tests.Waiting;
using SigningServer.Tests.Clients;
using SigningServer.Tests.Hosts;

namespace SigningServer.Tests.Signatures;

/// <summary>
/// <c>transcode</c> over HTTP answers what the object path answers: for every hostile body the same status, title
/// and path as <c>utf8</c>, also when the fault is found after a read that ended inside a widget, and for valid bodies
/// the same signature, also with a token longer than any buffer on the way and over a real socket.
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

    // The first part ends inside widget 150, so transcode consumes that read only to the widget's start though it
    // examined all of it; widget 200's fault is then found in a read that starts behind what the host's reader last
    // examined, and that read is handed back unconsumed. The answer is still the object path's, and nothing faults.
    [Theory]
    [InlineData("{\"id\":12345,", false)]
    [InlineData("{\"id\":12345,", true)]
    [InlineData("{]", false)]
    [InlineData("{]", true)]
    public async Task A_body_refused_after_a_read_that_ended_inside_a_widget_gets_the_object_paths_answer(string damage, bool chunked)
    {
        using var client = factory.CreateStreamingClient();
        var body = CanonicalWidgets.WithHead(Bodies.Canonical(widgetCount: 300, seed: 47), widget: 200, damage);
        var split = CanonicalWidgets.Start(body, 150) + 100;
        var expected = await AnswerAsync(client, "utf8", body);
        var mark = factory.Mark();

        using var connection = await RawHttpConnection.OpenAsync(client.BaseAddress!);
        var framing = chunked ? "Transfer-Encoding: chunked\r\n" : $"Content-Length: {body.Length.ToString(CultureInfo.InvariantCulture)}\r\n";
        await connection.SendAsync(RawHttpConnection.PostHead(client.BaseAddress!, "/api/sign?strategy=transcode", framing));
        await connection.SendAsync(chunked ? RawHttpConnection.Chunks(body.AsSpan(0, split)) : body.AsMemory(0, split));
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Budget.InUseBytes > 0, TimeSpan.FromSeconds(10)));
        await connection.SendAsync(chunked ? (byte[])[.. RawHttpConnection.Chunks(body.AsSpan(split)), .. "0\r\n\r\n"u8] : body.AsMemory(split));
        var answer = await connection.ReadToEndAsync(TimeSpan.FromSeconds(15));

        Assert.StartsWith("HTTP/1.1 400", answer, StringComparison.Ordinal);
        Assert.Equal(expected, FromJson(HttpStatusCode.BadRequest, answer[answer.IndexOf('{', StringComparison.Ordinal)..(answer.LastIndexOf('}') + 1)]));
        Assert.NotNull(await BoundedWait.UntilAsync(() => factory.Pool.InUseBytes == 0 && factory.Budget.InUseBytes == 0, TimeSpan.FromSeconds(5)));
        factory.AssertNoServerFaultSince(mark, $"{damage}, {(chunked ? "chunked" : "Content-Length")}");
        await ServerHealth.AssertStillSigningAsync(client, factory);
    }

    private static async Task<Answer> AnswerAsync(HttpClient client, string strategy, byte[] body)
    {
        using var response = await client.PostAsync("/api/sign?strategy=" + strategy, Bodies.Json(body));
        return FromJson(response.StatusCode, await response.Content.ReadAsStringAsync());
    }

    private static Answer FromJson(HttpStatusCode status, string json)
    {
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        return status == HttpStatusCode.OK
            ? new Answer(status, root.GetProperty("signature").GetString(), null, null, root.GetProperty("widgetCount").GetInt32())
            : new Answer(
                status,
                null,
                root.GetProperty("title").GetString(),
                root.TryGetProperty("path", out var path) ? path.GetString() : null,
                0);
    }

    private sealed record Answer(HttpStatusCode Status, string? Signature, string? Title, string? Path, int WidgetCount);
}
