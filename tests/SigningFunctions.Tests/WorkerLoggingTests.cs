using System.Net;
using Signing.Tests.Waiting;

namespace SigningFunctions.Tests;

/// <summary>
/// What the worker logs about a request stays free of secrets: in Azure the host forwards the URL as the client sent
/// it, <c>?code=</c> and the function key in it included, and ASP.NET Core's request lines, at Information, quoted it.
/// </summary>
[Collection(PublishedWorkerGroup.Name)]
public sealed class WorkerLoggingTests(PublishedWorker worker)
{
    [Fact]
    public async Task A_function_key_in_the_query_is_not_logged()
    {
        // A worker of its own, with the app's logging as published: the shared one turns the request lines on.
        await using var host = await worker.StartAsync(WorkerSettings.With([]));
        using var client = new HttpClient { BaseAddress = host.BaseAddress };
        var code = "function-key-" + Guid.NewGuid().ToString("N");

        using var response = await client.PostAsync("/api/sign?strategy=utf8&code=" + code, KnownAnswers.Json(KnownAnswers.TwoWidgets));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);

        // The sign's own event is logged after the request line that would quote the URL, and the request's end after both.
        var signed = await BoundedWait.UntilAsync(() => host.Output.Lines.Any(l => l.Contains("Signed 2 widgets with utf8", StringComparison.Ordinal)), TimeSpan.FromSeconds(10));
        Assert.True(signed is not null, host.Output.Tail());
        await Task.Delay(500);
        Assert.DoesNotContain(host.Output.Lines, l => l.Contains(code, StringComparison.Ordinal));
    }
}
