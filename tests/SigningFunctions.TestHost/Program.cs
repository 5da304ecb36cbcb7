using System.Runtime.InteropServices;
using SigningFunctions.TestHost;

// The test host as a program, for the load scripts and for a smoke test by hand:
//   dotnet SigningFunctions.TestHost.dll --worker <publish dir> [--urls http://127.0.0.1:0]
// It prints the worker's logs and Kestrel's "Now listening on: …" line once every function is loaded, runs until
// SIGTERM or SIGINT and then stops the worker; if the worker exits first, it exits 1 with the worker's last words.
string? appDirectory = null;
var urls = "http://127.0.0.1:0";
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--worker" when i + 1 < args.Length:
            appDirectory = args[++i];
            break;
        case "--urls" when i + 1 < args.Length:
            urls = args[++i];
            break;
        default:
            Console.Error.WriteLine($"Unknown or incomplete argument '{args[i]}'. Usage: SigningFunctions.TestHost --worker <publish dir> [--urls http://127.0.0.1:0]");
            return 2;
    }
}

if (appDirectory is null)
{
    Console.Error.WriteLine("Missing --worker <publish dir>: the folder 'dotnet publish src/SigningFunctions' wrote the app to.");
    return 2;
}

var stopping = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

// A signal during the start (which may wait up to minutes for the worker) abandons it; StartAsync stops the worker.
using var cancelStart = new CancellationTokenSource();
using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);

FunctionsTestHost host;
try
{
    host = await FunctionsTestHost.StartAsync(
        new FunctionsTestHostOptions { AppDirectory = appDirectory, Urls = urls, Echo = Console.Out }, cancelStart.Token);
}
catch (OperationCanceledException) when (cancelStart.IsCancellationRequested)
{
    return 0;
}
catch (Exception e) when (e is WorkerExitedException or InvalidOperationException or TimeoutException or IOException)
{
    Console.Error.WriteLine(e.Message);
    return 1;
}

await using (host)
{
    if (await Task.WhenAny(stopping.Task, host.WorkerExited) == host.WorkerExited)
    {
        Console.Error.WriteLine($"The Functions worker exited with code {await host.WorkerExited}. Its last words:{Environment.NewLine}{host.Output.Tail()}");
        return 1;
    }
}

return 0;

void Stop(PosixSignalContext context)
{
    // Stopping is ours to do in order (front end, worker, gRPC server), not the runtime's.
    context.Cancel = true;
    stopping.TrySetResult();
    cancelStart.Cancel();
}
