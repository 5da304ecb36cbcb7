using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace SigningServer.Tests.Hosts;

/// <summary>
/// Keeps every log entry a host writes, with its event name and structured fields as a log store receives them, so
/// tests can read what an operator would see, check fields by name, and search everything logged for what must never
/// be there.
/// </summary>
internal sealed class CapturingLoggerProvider : ILoggerProvider
{
    private readonly ConcurrentQueue<LogEntry> _entries = new();

    public IReadOnlyCollection<LogEntry> Entries => _entries;

    public ILogger CreateLogger(string categoryName) => new Logger(categoryName, _entries);

    public void Dispose()
    {
    }

    internal sealed record LogEntry(
        string Category, LogLevel Level, string? EventName, string Message, IReadOnlyDictionary<string, object?> Fields, Exception? Exception)
    {
        /// <summary>Everything the entry carries, as text: what a log store could show.</summary>
        public string AllText =>
            $"{Category} {EventName} {Message} {string.Join(" ", Fields.Select(f => $"{f.Key}={f.Value}"))} {Exception}";

        public override string ToString() => $"{Level} {Category}: {Message} {Exception}";
    }

    private sealed class Logger(string category, ConcurrentQueue<LogEntry> entries) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            var fields = state is IEnumerable<KeyValuePair<string, object?>> pairs
                ? pairs.GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.First().Value)
                : new Dictionary<string, object?>();
            entries.Enqueue(new LogEntry(category, logLevel, eventId.Name, formatter(state, exception), fields, exception));
        }
    }
}
