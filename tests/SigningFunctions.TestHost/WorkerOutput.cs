namespace SigningFunctions.TestHost;

/// <summary>
/// Everything the worker said, in arrival order: its <c>RpcLog</c> messages (where the worker's ILogger output goes, as
/// on the real host) and its standard output and error. Kept so that a failing test, or a worker that exits early,
/// shows the worker's own words; echoed as it arrives when the test host runs as a program. Only the last
/// <see cref="KeptLines"/> lines are kept (a load run logs several lines per request); standard error is kept whole.
/// </summary>
public sealed class WorkerOutput
{
    /// <summary>How many of the latest lines <see cref="Lines"/> keeps.</summary>
    public const int KeptLines = 10_000;

    private readonly Queue<string> _lines = new();
    private readonly List<string> _standardError = [];
    private readonly TextWriter? _echo;

    /// <summary>Creates an empty record.</summary>
    /// <param name="echo">Where each line is also written as it arrives (the program's console), or null to keep them only.</param>
    public WorkerOutput(TextWriter? echo) => _echo = echo;

    /// <summary>The latest lines, each prefixed with where it came from (<c>[log Error]</c>, <c>[stdout]</c>, <c>[stderr]</c>).</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (_lines)
            {
                return [.. _lines];
            }
        }
    }

    /// <summary>The worker's standard error alone: where a bad setting's one line goes.</summary>
    public IReadOnlyList<string> StandardError
    {
        get
        {
            lock (_lines)
            {
                return [.. _standardError];
            }
        }
    }

    /// <summary>The last lines, for an error message: what the worker said last is what explains its failure.</summary>
    /// <param name="count">How many lines at most.</param>
    /// <returns>The lines joined by new lines.</returns>
    public string Tail(int count = 40)
    {
        var lines = Lines;
        return string.Join(Environment.NewLine, lines.Skip(Math.Max(0, lines.Count - count)));
    }

    internal void Log(string source, string line)
    {
        var entry = $"[{source}] {line}";
        lock (_lines)
        {
            _lines.Enqueue(entry);
            if (_lines.Count > KeptLines)
            {
                _lines.Dequeue();
            }

            if (source == "stderr")
            {
                _standardError.Add(line);
            }
        }

        _echo?.WriteLine(entry);
    }
}
