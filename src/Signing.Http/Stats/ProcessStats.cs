namespace Signing.Http.Stats;

/// <summary>
/// The process as the operating system sees it. Working set is what a host's memory limit and a dashboard measure,
/// and it is where a heap that grew under load stays grown.
/// </summary>
/// <param name="WorkingSetBytes">Physical memory in use now.</param>
/// <param name="PeakWorkingSetBytes">The most physical memory the process has used since it started.</param>
/// <param name="PrivateMemoryBytes">Memory that only this process can use.</param>
/// <param name="CpuSeconds">Processor time used since the process started, on all cores.</param>
/// <param name="UptimeSeconds">Time since the process started.</param>
/// <param name="ProcessorCount">Cores the runtime may use, which sets how many heaps server GC makes.</param>
public sealed record ProcessStats(
    long WorkingSetBytes,
    long PeakWorkingSetBytes,
    long PrivateMemoryBytes,
    double CpuSeconds,
    double UptimeSeconds,
    int ProcessorCount);
