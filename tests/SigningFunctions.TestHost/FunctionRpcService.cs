using Grpc.Core;
using SigningFunctions.TestHost.Rpc;

namespace SigningFunctions.TestHost;

/// <summary>
/// The host's gRPC service as the worker's client knows it (<c>AzureFunctionsRpcMessages.FunctionRpc</c>): the one
/// bidirectional <c>EventStream</c> call, handed to the <see cref="WorkerChannel"/> that holds the conversation.
/// </summary>
/// <param name="channel">The conversation with the one worker this host starts.</param>
internal sealed class FunctionRpcService(WorkerChannel channel) : FunctionRpc.FunctionRpcBase
{
    /// <inheritdoc/>
    public override Task EventStream(
        IAsyncStreamReader<StreamingMessage> requestStream, IServerStreamWriter<StreamingMessage> responseStream, ServerCallContext context) =>
        channel.RunAsync(requestStream, responseStream, context.CancellationToken);
}
