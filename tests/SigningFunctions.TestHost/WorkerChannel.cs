using System.Collections.Concurrent;
using System.Threading.Channels;
using Grpc.Core;
using SigningFunctions.TestHost.Rpc;

namespace SigningFunctions.TestHost;

/// <summary>
/// The host's side of one worker's <c>FunctionRpc.EventStream</c>: the handshake (<c>StartStream</c>,
/// <c>WorkerInitRequest</c>, <c>FunctionsMetadataRequest</c>, a <c>FunctionLoadRequest</c> per function), then
/// invocations, with every <c>RpcLog</c> the worker sends written to its <see cref="WorkerOutput"/>. Messages to the
/// worker go through one queue with one writer, because a gRPC stream takes one write at a time; replies are matched
/// to what waits for them by kind and id (a function id on load, an invocation id on invoke).
/// </summary>
internal sealed class WorkerChannel(string workerId, WorkerOutput output)
{
    private readonly Channel<StreamingMessage> _outgoing = Channel.CreateUnbounded<StreamingMessage>(new() { SingleReader = true });
    private readonly ConcurrentDictionary<string, TaskCompletionSource<StreamingMessage>> _awaited = new();
    private readonly TaskCompletionSource _connected = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _closed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _streams;

    /// <summary>Completes when the worker's stream ends, however it ends.</summary>
    public Task Closed => _closed.Task;

    /// <summary>
    /// Serves the worker's stream until either side ends it: called by <see cref="FunctionRpcService"/>. A second
    /// stream is refused: this host runs one worker.
    /// </summary>
    /// <param name="requests">What the worker sends.</param>
    /// <param name="responses">What the host sends.</param>
    /// <param name="cancellationToken">Signalled when the call ends.</param>
    /// <returns>A task that completes when the stream is over.</returns>
    public async Task RunAsync(
        IAsyncStreamReader<StreamingMessage> requests, IServerStreamWriter<StreamingMessage> responses, CancellationToken cancellationToken)
    {
        if (Interlocked.Increment(ref _streams) != 1)
        {
            throw new Grpc.Core.RpcException(new Grpc.Core.Status(StatusCode.AlreadyExists, "This test host serves one worker stream."));
        }

        var writing = WriteAsync(responses, cancellationToken);
        try
        {
            await foreach (var message in requests.ReadAllAsync(cancellationToken))
            {
                Receive(message);
            }
        }
        catch (OperationCanceledException)
        {
            // The worker went away, or the host is stopping.
        }
        finally
        {
            _outgoing.Writer.TryComplete();
            _closed.TrySetResult();
            foreach (var waiting in _awaited.Values)
            {
                waiting.TrySetException(new IOException("The worker's gRPC stream ended."));
            }
        }

        await writing;
    }

    /// <summary>
    /// The handshake, as the host does it once the worker has connected: init, then metadata, then one load per function.
    /// </summary>
    /// <param name="appDirectory">The published app.</param>
    /// <param name="cancellationToken">Ends the wait.</param>
    /// <returns>The worker's <c>HttpUri</c> and the functions it loaded.</returns>
    /// <exception cref="InvalidOperationException">The worker reported a failure, or lacks the ASP.NET Core integration.</exception>
    public async Task<(Uri HttpUri, IReadOnlyList<RpcFunctionMetadata> Functions)> HandshakeAsync(string appDirectory, CancellationToken cancellationToken)
    {
        await _connected.Task.WaitAsync(cancellationToken);

        var init = new WorkerInitRequest
        {
            HostVersion = "4.0.0-signingfunctions-testhost",
            WorkerDirectory = appDirectory,
            FunctionAppDirectory = appDirectory,
        };
        var initReply = (await RequestAsync(new StreamingMessage { WorkerInitRequest = init }, "init", cancellationToken)).WorkerInitResponse;
        EnsureSuccess(initReply.Result, "WorkerInitRequest");

        // The host forwards HTTP to the worker only when the worker says where its Kestrel listens; without
        // ConfigureFunctionsWebApplication() there is no such capability, and nothing could serve a request.
        if (!initReply.Capabilities.TryGetValue("HttpUri", out var httpUri) || !Uri.TryCreate(httpUri, UriKind.Absolute, out var uri))
        {
            throw new InvalidOperationException(
                "The worker reported no 'HttpUri' capability, so it runs no ASP.NET Core integration (ConfigureFunctionsWebApplication) " +
                "and the host could not forward HTTP to it. Capabilities: " + string.Join(", ", initReply.Capabilities.Keys));
        }

        var metadataRequest = new FunctionsMetadataRequest { FunctionAppDirectory = appDirectory };
        var metadata = (await RequestAsync(new StreamingMessage { FunctionsMetadataRequest = metadataRequest }, "metadata", cancellationToken))
            .FunctionMetadataResponse;
        EnsureSuccess(metadata.Result, "FunctionsMetadataRequest");

        var loaded = new List<RpcFunctionMetadata>();
        foreach (var function in metadata.FunctionMetadataResults)
        {
            if (string.IsNullOrEmpty(function.FunctionId))
            {
                function.FunctionId = Guid.NewGuid().ToString();
            }

            function.Directory = appDirectory;
            var load = new FunctionLoadRequest { FunctionId = function.FunctionId, Metadata = function };
            var loadReply = (await RequestAsync(new StreamingMessage { FunctionLoadRequest = load }, "load:" + function.FunctionId, cancellationToken))
                .FunctionLoadResponse;
            EnsureSuccess(loadReply.Result, $"FunctionLoadRequest for '{function.Name}'");
            loaded.Add(function);
        }

        return (uri, loaded);
    }

    /// <summary>Sends an <c>InvocationRequest</c> and returns its <c>InvocationResponse</c> when the worker sends it.</summary>
    /// <param name="request">The invocation.</param>
    /// <returns>The worker's response to it.</returns>
    public async Task<InvocationResponse> InvokeAsync(InvocationRequest request)
    {
        var waiting = Await("invocation:" + request.InvocationId);
        Send(new StreamingMessage { InvocationRequest = request });
        return (await waiting).InvocationResponse;
    }

    /// <summary>Asks the worker to stop (<c>WorkerTerminate</c>), then ends the host's side of the stream.</summary>
    /// <param name="grace">The grace period the worker is given.</param>
    public void Terminate(TimeSpan grace)
    {
        Send(new StreamingMessage { WorkerTerminate = new WorkerTerminate { GracePeriod = Google.Protobuf.WellKnownTypes.Duration.FromTimeSpan(grace) } });
        _outgoing.Writer.TryComplete();
    }

    private async Task<StreamingMessage> RequestAsync(StreamingMessage message, string key, CancellationToken cancellationToken)
    {
        var waiting = Await(key);
        Send(message);
        return await waiting.WaitAsync(cancellationToken);
    }

    private Task<StreamingMessage> Await(string key)
    {
        var waiting = new TaskCompletionSource<StreamingMessage>(TaskCreationOptions.RunContinuationsAsynchronously);
        if (!_awaited.TryAdd(key, waiting))
        {
            throw new InvalidOperationException($"Already waiting for '{key}'.");
        }

        if (_closed.Task.IsCompleted)
        {
            waiting.TrySetException(new IOException("The worker's gRPC stream has ended."));
        }

        return waiting.Task;
    }

    private void Send(StreamingMessage message)
    {
        message.RequestId = Guid.NewGuid().ToString();
        _outgoing.Writer.TryWrite(message);
    }

    private async Task WriteAsync(IServerStreamWriter<StreamingMessage> responses, CancellationToken cancellationToken)
    {
        try
        {
            await foreach (var message in _outgoing.Reader.ReadAllAsync(cancellationToken))
            {
                await responses.WriteAsync(message, cancellationToken);
            }
        }
        catch (Exception e) when (e is OperationCanceledException or InvalidOperationException or IOException)
        {
            // The call ended under the writer: the reader's side reports it.
        }
    }

    private void Receive(StreamingMessage message)
    {
        switch (message.ContentCase)
        {
            case StreamingMessage.ContentOneofCase.StartStream:
                if (message.StartStream.WorkerId != workerId)
                {
                    output.Log("testhost", $"StartStream from worker '{message.StartStream.WorkerId}', expected '{workerId}'.");
                }

                _connected.TrySetResult();
                break;
            case StreamingMessage.ContentOneofCase.RpcLog:
                Log(message.RpcLog);
                break;
            case StreamingMessage.ContentOneofCase.WorkerInitResponse:
                Complete("init", message);
                break;
            case StreamingMessage.ContentOneofCase.FunctionMetadataResponse:
                Complete("metadata", message);
                break;
            case StreamingMessage.ContentOneofCase.FunctionLoadResponse:
                Complete("load:" + message.FunctionLoadResponse.FunctionId, message);
                break;
            case StreamingMessage.ContentOneofCase.InvocationResponse:
                Complete("invocation:" + message.InvocationResponse.InvocationId, message);
                break;
            default:
                // Heartbeats and messages this host does not use: the real host ignores what it does not expect, too.
                break;
        }
    }

    private void Complete(string key, StreamingMessage message)
    {
        if (_awaited.TryRemove(key, out var waiting))
        {
            waiting.TrySetResult(message);
        }
    }

    private void Log(RpcLog log)
    {
        var text = log.Exception is { } exception ? $"{log.Message} {exception.Message}" : log.Message;
        output.Log($"log {log.Level} {log.Category}", text);
    }

    private static void EnsureSuccess(StatusResult? result, string what)
    {
        if (result is null || result.Status != StatusResult.Types.Status.Success)
        {
            throw new InvalidOperationException(
                $"The worker answered {what} with {result?.Status.ToString() ?? "no status"}: {result?.Result} {result?.Exception?.Message}");
        }
    }
}
