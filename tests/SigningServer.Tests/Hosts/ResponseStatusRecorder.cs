using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// Wraps the whole pipeline, exception handler included, and records every request's start and how it ended: its final
/// status, or the exception that escaped the application. So a test can tell a 500 (or a crash) from a client's own
/// fault even when the client never read the answer.
/// </summary>
internal sealed class ResponseStatusRecorder : IStartupFilter
{
    private readonly ConcurrentQueue<RecordedResponse> _responses = new();
    private readonly ConcurrentQueue<string> _started = new();

    public IReadOnlyCollection<RecordedResponse> Responses => _responses;

    /// <summary>
    /// The paths of the requests that have reached the application, in order: a client that goes away only once its
    /// request is in, and not while Kestrel may still be reading its headers, waits for this.
    /// </summary>
    public IReadOnlyCollection<string> Started => _started;

    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        app.Use(async (context, nextMiddleware) =>
        {
            var path = context.Request.Path.Value ?? "";
            _started.Enqueue(path);
            try
            {
                await nextMiddleware(context);
                _responses.Enqueue(new RecordedResponse(path, context.Response.StatusCode, context.RequestAborted.IsCancellationRequested, null));
            }
            catch (Exception e)
            {
                _responses.Enqueue(new RecordedResponse(path, context.Response.StatusCode, context.RequestAborted.IsCancellationRequested, e));
                throw;
            }
        });
        next(app);
    };

    /// <summary>One request's end.</summary>
    /// <param name="Path">The request's path.</param>
    /// <param name="Status">The status the response had (or would have had) when the pipeline returned.</param>
    /// <param name="ClientAborted">Whether the client had gone away by then.</param>
    /// <param name="Escaped">An exception that no handler caught, if any.</param>
    internal sealed record RecordedResponse(string Path, int Status, bool ClientAborted, Exception? Escaped)
    {
        public override string ToString() => $"{Path} {Status}{(ClientAborted ? " (client aborted)" : "")} {Escaped}";
    }
}
