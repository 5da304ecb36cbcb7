using System.Text;
using System.Text.RegularExpressions;

namespace Deployment.Tests;

/// <summary>
/// A Bicep file read the way its lexer reads it: comments (<c>//</c>, <c>/* */</c>), single-quoted strings with
/// escapes and <c>${…}</c> interpolations (nested to any depth), and <c>'''</c> multi-line strings. There is no Bicep
/// CLI on our NuGet mirror, so this is what checks that a template is at least well formed (every delimiter closed and
/// matched, every string and comment terminated) and lets the tests look at code without being fooled by comments.
/// </summary>
internal sealed partial class BicepFile
{
    private readonly int[] _depth;

    private BicepFile(string path, string text)
    {
        Path = path;
        Text = text;
        var code = text.ToCharArray();
        var skeleton = text.ToCharArray();
        _depth = new int[text.Length + 1];
        Problems = Scan(text, code, skeleton, _depth);
        Code = new string(code);
        Skeleton = new string(skeleton);
    }

    private enum Mode
    {
        Code,
        String,
        MultiLineString,
        LineComment,
        BlockComment,
    }

    /// <summary>The file's path, for messages.</summary>
    public string Path { get; }

    /// <summary>The file as written.</summary>
    public string Text { get; }

    /// <summary>The file with every comment blanked out (newlines kept), so offsets match <see cref="Text"/>.</summary>
    public string Code { get; }

    /// <summary><see cref="Code"/> with the literal characters inside strings blanked too; interpolations stay.</summary>
    public string Skeleton { get; }

    /// <summary>What the scan found wrong: unmatched delimiters, unterminated strings or comments.</summary>
    public IReadOnlyList<string> Problems { get; }

    public static BicepFile Load(string path) => new(path, File.ReadAllText(path));

    public static BicepFile Parse(string text) => new("(text)", text);

    /// <summary>Top-level declarations (<c>param</c>, <c>var</c>, <c>resource</c>, …) with the decorators above them.</summary>
    public IReadOnlyList<Declaration> Declarations()
    {
        var result = new List<Declaration>();
        var lineStarts = new List<int> { 0 };
        for (var i = 0; i < Code.Length; i++)
        {
            if (Code[i] == '\n')
            {
                lineStarts.Add(i + 1);
            }
        }

        // A statement starts on a line that begins at nesting depth 0 with a keyword or a decorator.
        var starts = new List<(int Offset, bool IsDecorator)>();
        foreach (var start in lineStarts)
        {
            if (start >= Code.Length || _depth[start] != 0)
            {
                continue;
            }

            var line = Code[start..LineEnd(start)];
            if (line.StartsWith('@'))
            {
                starts.Add((start, true));
            }
            else if (DeclarationStart().IsMatch(line))
            {
                starts.Add((start, false));
            }
        }

        var decoratorsFrom = -1;
        for (var i = 0; i < starts.Count; i++)
        {
            var (offset, isDecorator) = starts[i];
            if (isDecorator)
            {
                decoratorsFrom = decoratorsFrom < 0 ? offset : decoratorsFrom;
                continue;
            }

            var end = i + 1 < starts.Count ? starts[i + 1].Offset : Code.Length;
            var statement = Code[offset..end].TrimEnd();
            var decorators = decoratorsFrom < 0 ? string.Empty : Code[decoratorsFrom..offset];
            var match = DeclarationStart().Match(statement);
            result.Add(new Declaration(match.Groups["kind"].Value, match.Groups["name"].Value, decorators, statement, offset, decoratorsFrom < 0 ? offset : decoratorsFrom));
            decoratorsFrom = -1;
        }

        return result;
    }

    /// <summary>Every <c>resource</c> declaration whose type (before the <c>@</c>) is <paramref name="type"/>.</summary>
    public IReadOnlyList<Declaration> Resources(string type) =>
        Declarations().Where(d => d.Kind == "resource" && string.Equals(d.ResourceType, type, StringComparison.OrdinalIgnoreCase)).ToList();

    /// <summary>The single <c>resource</c> of <paramref name="type"/>; fails the test when there is none or several.</summary>
    public Declaration Resource(string type)
    {
        var found = Resources(type);
        Assert.True(found.Count == 1, $"{Path}: expected one resource of type {type}, found {found.Count}.");
        return found[0];
    }

    /// <summary>
    /// The text between the braces that follow <c>name:</c> inside <paramref name="within"/> (comments blanked),
    /// found at any depth; fails the test when there is no such property.
    /// </summary>
    public static string ObjectProperty(string within, string name)
    {
        var skeleton = Parse(within);
        var match = Regex.Match(skeleton.Skeleton, $@"(?<![\w.']){Regex.Escape(name)}\s*:\s*\{{");
        Assert.True(match.Success, $"No object property '{name}:' in:{Environment.NewLine}{within}");
        var open = match.Index + match.Length - 1;
        var close = skeleton.MatchingClose(open);
        return within[(open + 1)..close];
    }

    /// <summary>The offset of the delimiter that closes the one at <paramref name="open"/>, ignoring strings and comments.</summary>
    public int MatchingClose(int open)
    {
        var depth = 0;
        for (var i = open; i < Skeleton.Length; i++)
        {
            switch (Skeleton[i])
            {
                case '{' or '[' or '(':
                    depth++;
                    break;
                case '}' or ']' or ')':
                    depth--;
                    if (depth == 0)
                    {
                        return i;
                    }

                    break;
            }
        }

        throw new InvalidOperationException($"{Path}: the delimiter at offset {open} is never closed.");
    }

    private int LineEnd(int start)
    {
        var end = Code.IndexOf('\n', start);
        return end < 0 ? Code.Length : end;
    }

    private static List<string> Scan(string text, char[] code, char[] skeleton, int[] depthAt)
    {
        var problems = new List<string>();
        var mode = Mode.Code;

        // Open delimiters of the code being read; '$' marks an interpolation, whose '}' returns to the string.
        var open = new Stack<(char Delimiter, int Offset)>();

        string Where(int offset)
        {
            var line = 1 + text.AsSpan(0, offset).Count('\n');
            return $"line {line}";
        }

        void Blank(int index, bool inCode)
        {
            if (text[index] is '\n' or '\r')
            {
                return;
            }

            skeleton[index] = ' ';
            if (inCode)
            {
                code[index] = ' ';
            }
        }

        var stringStart = 0;
        var i = 0;
        var filled = 0;
        while (i < text.Length)
        {
            // Offsets skipped over as the second or third character of a token get the depth of the one after it.
            while (filled <= i)
            {
                depthAt[filled++] = open.Count;
            }

            var c = text[i];
            var next = i + 1 < text.Length ? text[i + 1] : '\0';
            switch (mode)
            {
                case Mode.Code:
                    if (c == '/' && next == '/')
                    {
                        mode = Mode.LineComment;
                        Blank(i, true);
                        Blank(i + 1, true);
                        i += 2;
                        continue;
                    }

                    if (c == '/' && next == '*')
                    {
                        mode = Mode.BlockComment;
                        stringStart = i;
                        Blank(i, true);
                        Blank(i + 1, true);
                        i += 2;
                        continue;
                    }

                    if (c == '\'' && next == '\'' && i + 2 < text.Length && text[i + 2] == '\'')
                    {
                        mode = Mode.MultiLineString;
                        stringStart = i;
                        i += 3;
                        continue;
                    }

                    if (c == '\'')
                    {
                        mode = Mode.String;
                        stringStart = i;
                        i++;
                        continue;
                    }

                    if (c is '{' or '[' or '(')
                    {
                        open.Push((c, i));
                    }
                    else if (c is '}' or ']' or ')')
                    {
                        var expected = c switch { '}' => '{', ']' => '[', _ => '(' };
                        if (open.Count == 0)
                        {
                            problems.Add($"{Where(i)}: '{c}' closes nothing.");
                        }
                        else if (open.Peek().Delimiter == '$' && c == '}')
                        {
                            open.Pop();
                            mode = Mode.String;
                        }
                        else if (open.Peek().Delimiter != expected)
                        {
                            var (delimiter, offset) = open.Pop();
                            problems.Add($"{Where(i)}: '{c}' closes '{delimiter}' opened at {Where(offset)}.");
                        }
                        else
                        {
                            open.Pop();
                        }
                    }

                    i++;
                    continue;

                case Mode.String:
                    if (c == '\\')
                    {
                        Blank(i, false);
                        if (i + 1 < text.Length)
                        {
                            Blank(i + 1, false);
                        }

                        i += 2;
                        continue;
                    }

                    if (c == '\'')
                    {
                        mode = Mode.Code;
                        i++;
                        continue;
                    }

                    if (c == '$' && next == '{')
                    {
                        open.Push(('$', i));
                        mode = Mode.Code;
                        i += 2;
                        continue;
                    }

                    if (c == '\n')
                    {
                        problems.Add($"{Where(i)}: a single-quoted string runs into the end of the line.");
                        mode = Mode.Code;
                        i++;
                        continue;
                    }

                    Blank(i, false);
                    i++;
                    continue;

                case Mode.MultiLineString:
                    if (c == '\'' && next == '\'' && i + 2 < text.Length && text[i + 2] == '\'')
                    {
                        mode = Mode.Code;
                        i += 3;
                        continue;
                    }

                    Blank(i, false);
                    i++;
                    continue;

                case Mode.LineComment:
                    if (c == '\n')
                    {
                        mode = Mode.Code;
                    }
                    else
                    {
                        Blank(i, true);
                    }

                    i++;
                    continue;

                case Mode.BlockComment:
                    if (c == '*' && next == '/')
                    {
                        Blank(i, true);
                        Blank(i + 1, true);
                        mode = Mode.Code;
                        i += 2;
                        continue;
                    }

                    Blank(i, true);
                    i++;
                    continue;
            }
        }

        depthAt[text.Length] = open.Count;
        switch (mode)
        {
            case Mode.String or Mode.MultiLineString:
                problems.Add($"{Where(stringStart)}: a string is never closed.");
                break;
            case Mode.BlockComment:
                problems.Add($"{Where(stringStart)}: a /* comment is never closed.");
                break;
        }

        foreach (var (delimiter, offset) in open)
        {
            problems.Add($"{Where(offset)}: '{(delimiter == '$' ? "${" : delimiter.ToString())}' is never closed.");
        }

        return problems;
    }

    [GeneratedRegex(@"^(?<kind>targetScope|metadata|param|var|resource|module|output|type|func|import)\b\s*(?<name>[A-Za-z_][A-Za-z0-9_]*)?")]
    private static partial Regex DeclarationStart();

    /// <summary>One top-level statement.</summary>
    /// <param name="Kind">The keyword: param, var, resource, module, output, …</param>
    /// <param name="Name">The symbol it declares.</param>
    /// <param name="Decorators">The decorator lines above it (comments blanked).</param>
    /// <param name="Body">The statement itself, from its keyword to the next statement (comments blanked).</param>
    /// <param name="Offset">Where the keyword is.</param>
    /// <param name="DecoratorsOffset">Where its first decorator is, or <paramref name="Offset"/> when it has none.</param>
    internal sealed record Declaration(string Kind, string Name, string Decorators, string Body, int Offset, int DecoratorsOffset)
    {
        /// <summary>For a resource or module, the quoted type or path after the symbol.</summary>
        public string Target
        {
            get
            {
                var match = Regex.Match(Body, @"^\w+\s+\w+\s+'(?<target>[^']*)'");
                return match.Success ? match.Groups["target"].Value : string.Empty;
            }
        }

        /// <summary>For a resource, its type without the API version.</summary>
        public string ResourceType => Target.Split('@')[0];

        /// <summary>The expression after <c>=</c> (a param's default, a var's or an output's value).</summary>
        public string? Value
        {
            get
            {
                var equals = Body.IndexOf('=', StringComparison.Ordinal);
                return equals < 0 ? null : Body[(equals + 1)..].Trim();
            }
        }

        /// <summary>Whether the statement carries the decorator <c>@name</c>.</summary>
        public bool HasDecorator(string name) =>
            Regex.IsMatch(Decorators, $@"(^|\s)@{Regex.Escape(name)}\s*\(", RegexOptions.Multiline | RegexOptions.IgnoreCase);

        public override string ToString() => new StringBuilder().Append(Kind).Append(' ').Append(Name).ToString();
    }
}
