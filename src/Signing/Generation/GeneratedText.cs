namespace Signing.Generation;

/// <summary>What the strings of a generated envelope are made of.</summary>
public enum GeneratedText
{
    /// <summary>Letters and digits, like the write-up's data: the realistic case for benchmarks and load tests.</summary>
    Plain,

    /// <summary>
    /// Text that exercises every escaping rule: quotes, backslashes, control characters, non-ASCII, surrogate pairs,
    /// lone surrogates and the line separators JSON writers treat specially. For tests that compare strategies.
    /// </summary>
    Awkward,
}
