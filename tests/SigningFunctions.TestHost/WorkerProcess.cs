using System.Diagnostics;
using System.Globalization;

namespace SigningFunctions.TestHost;

/// <summary>
/// The worker process, started as the host starts it: the command line from <c>worker.config.json</c>, then the
/// connection arguments in both forms the host passes (<c>--host/--port/--workerId/--requestId/--grpcMaxMessageLength</c>
/// for older workers, <c>--functions-uri/--functions-worker-id/--functions-request-id/--functions-grpc-max-message-length</c>,
/// which Microsoft.Azure.Functions.Worker 2.x reads), the app folder as working directory, and the host's own
/// environment plus the settings that say which app and runtime this is. The host's environment is how app settings
/// (<c>Signing__Key</c>, <c>DOTNET_GCHeapHardLimit</c>) reach the worker in Azure, so they reach it the same way here.
/// </summary>
internal sealed class WorkerProcess : IDisposable
{
    private readonly Process _process;

    private WorkerProcess(Process process, Task<int> exited)
    {
        _process = process;
        Exited = exited;
    }

    /// <summary>Completes with the exit code when the worker exits, for whatever reason.</summary>
    public Task<int> Exited { get; }

    /// <summary>The worker's process id.</summary>
    public int Id => _process.Id;

    /// <summary>Starts the worker.</summary>
    /// <param name="appDirectory">The published app.</param>
    /// <param name="grpcUri">Where the test host's FunctionRpc service listens.</param>
    /// <param name="workerId">The id the worker must announce in its StartStream.</param>
    /// <param name="environment">Settings added to (or, with a null value, removed from) the inherited environment.</param>
    /// <param name="output">Receives the worker's standard output and error, line by line.</param>
    /// <returns>The running worker.</returns>
    public static WorkerProcess Start(
        string appDirectory, Uri grpcUri, string workerId, IReadOnlyDictionary<string, string?> environment, WorkerOutput output)
    {
        var launch = WorkerLaunch.Read(appDirectory);
        var requestId = Guid.NewGuid().ToString();
        var maxMessageLength = int.MaxValue.ToString(CultureInfo.InvariantCulture);
        var start = new ProcessStartInfo(launch.Executable)
        {
            WorkingDirectory = appDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in launch.Arguments)
        {
            start.ArgumentList.Add(argument);
        }

        string[] connection =
        [
            "--host", grpcUri.Host, "--port", grpcUri.Port.ToString(CultureInfo.InvariantCulture),
            "--workerId", workerId, "--requestId", requestId, "--grpcMaxMessageLength", maxMessageLength,
            "--functions-uri", grpcUri.AbsoluteUri, "--functions-worker-id", workerId,
            "--functions-request-id", requestId, "--functions-grpc-max-message-length", maxMessageLength,
        ];
        foreach (var argument in connection)
        {
            start.ArgumentList.Add(argument);
        }

        // Inherited first (ProcessStartInfo copies this process's environment), then what the host sets itself, then
        // the caller's settings, which win as app settings do.
        start.Environment["FUNCTIONS_WORKER_RUNTIME"] = "dotnet-isolated";
        start.Environment["FUNCTIONS_APPLICATION_DIRECTORY"] = appDirectory;
        start.Environment["AzureWebJobsScriptRoot"] = appDirectory;
        foreach (var (name, value) in environment)
        {
            if (value is null)
            {
                start.Environment.Remove(name);
            }
            else
            {
                start.Environment[name] = value;
            }
        }

        var process = new Process { StartInfo = start, EnableRaisingEvents = true };
        var exited = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        process.OutputDataReceived += (_, e) => LogLine(output, "stdout", e.Data);
        process.ErrorDataReceived += (_, e) => LogLine(output, "stderr", e.Data);

        // Exited fires before the redirected streams are drained; waiting for them makes the last words part of the record.
        process.Exited += (_, _) => _ = Task.Run(async () =>
        {
            await process.WaitForExitAsync();
            exited.TrySetResult(process.ExitCode);
        });
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return new WorkerProcess(process, exited.Task);
    }

    /// <summary>Waits for the worker to exit on its own (after WorkerTerminate), then kills it.</summary>
    /// <param name="grace">How long the worker has to stop by itself.</param>
    /// <returns>A task that completes when the worker is gone.</returns>
    public async Task StopAsync(TimeSpan grace)
    {
        if (await Task.WhenAny(Exited, Task.Delay(grace)) != Exited)
        {
            try
            {
                _process.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            {
                // It exited between the wait and the kill.
            }

            await Exited;
        }
    }

    /// <inheritdoc/>
    public void Dispose() => _process.Dispose();

    private static void LogLine(WorkerOutput output, string source, string? line)
    {
        if (line is not null)
        {
            output.Log(source, line);
        }
    }
}
