using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// Wraps the whole pipeline, exception handler included, and records how every request ended: its final status, or
/// the exception that escaped the application. So a test can tell a 500 (or a crash) from a client's own fault even
/// when the client never read the answer.
/// </summary>
internal sealed class ResponseStatusRecorder : IStartupFilter
{
    private readonly ConcurrentQueue<RecordedResponse> _responses = new();

    public IReadOnlyCollection<RecordedResponse> Responses => _responses;

    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        app.Use(async (context, nextMiddleware) =>
        {
            var path = context.Request.Path.Value ?? "";
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
