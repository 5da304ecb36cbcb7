using System.Globalization;
using System.Text;
using Signing.Generation;

namespace Signing.Tests.Transcoding.Harness;

/// <summary>
/// Bodies a client might send for a generated envelope: the same widgets written in any valid way (members in any
/// order, whitespace anywhere, any character escaped in any form, Guids and instants in other accepted or refused
/// forms), now and then with a member missing, doubled, renamed or of the wrong type, and now and then damaged at the
/// byte level (cut short, bytes changed, tokens inserted, garbage appended). Reproducible from the seed.
/// </summary>
#pragma warning disable CA5394 // Not for security: test data must be reproducible.
internal sealed class RandomBodies(int seed)
{
    private static readonly string[] Tokens = ["{", "}", "[", "]", ",", ":", "\"", "null", "1", " ", "\\", "\"id\"", "\"x\":", "tru", "-", "1e", "\u00e9"];

    private readonly Random _random = new(seed);
    private bool _keepLoneSurrogates;

    /// <summary>The next body; never empty.</summary>
    public byte[] Next()
    {
        var count = _random.Next(10) switch
        {
            0 => 0,
            1 => _random.Next(20, 200),
            _ => _random.Next(1, 6),
        };
        var envelope = EnvelopeGenerator.Create(count, _random.Next(), _random.Next(2) == 0 ? GeneratedText.Plain : GeneratedText.Awkward);
        _keepLoneSurrogates = _random.Next(30) == 0;
        var json = new StringBuilder();
        Whitespace(json);
        json.Append('{');
        Whitespace(json);
        if (_random.Next(40) == 0)
        {
            String(json, "x");
            json.Append(":1,");
        }

        Name(json, "widgets");
        json.Append(':');
        Whitespace(json);
        json.Append('[');
        for (var i = 0; i < envelope.Widgets.Count; i++)
        {
            if (i > 0)
            {
                json.Append(',');
            }

            Whitespace(json);
            if (_random.Next(100) == 0)
            {
                json.Append("null");
                continue;
            }

            Widget(json, envelope.Widgets[i]);
        }

        Whitespace(json);
        json.Append(']');
        Whitespace(json);
        json.Append('}');
        Whitespace(json);
        var body = Encoding.UTF8.GetBytes(json.ToString());
        return _random.Next(4) == 0 ? Damage(body) : body;
    }

    private void Widget(StringBuilder json, Widget widget)
    {
        string[] strings = [widget.Property0, widget.Property1, widget.Property2, widget.Property3, widget.Property4,
            widget.Property5, widget.Property6, widget.Property7, widget.Property8, widget.Property9];
        var order = Enumerable.Range(0, 12).ToList();
        if (_random.Next(3) == 0)
        {
            order = [.. order.OrderBy(_ => _random.Next())];
        }

        if (_random.Next(25) == 0)
        {
            order.RemoveAt(_random.Next(order.Count));
        }

        if (_random.Next(25) == 0)
        {
            order.Insert(_random.Next(order.Count + 1), _random.Next(12));
        }

        json.Append('{');
        for (var i = 0; i < order.Count; i++)
        {
            var member = order[i];
            if (i > 0)
            {
                json.Append(',');
            }

            Whitespace(json);
            if (_random.Next(200) == 0)
            {
                String(json, "unknown");
                json.Append(":1,");
            }

            Name(json, EnvelopeJson.Members[member]);
            json.Append(':');
            Whitespace(json);
            if (_random.Next(150) == 0)
            {
                json.Append(WrongValues[_random.Next(WrongValues.Length)]);
            }
            else if (member == 0)
            {
                Guid(json, widget.Id);
            }
            else if (member == 11)
            {
                Instant(json, widget.CreatedUtc);
            }
            else
            {
                String(json, strings[member - 1]);
            }

            Whitespace(json);
        }

        json.Append('}');
    }

    private static readonly string[] WrongValues = ["null", "5", "[]", "{}", "true", "\"\"", "[[[\"x\"]]]"];

    private void Whitespace(StringBuilder json)
    {
        if (_random.Next(6) == 0)
        {
            json.Append(_random.Next(4) switch { 0 => " ", 1 => "\n", 2 => "\r\n\t ", _ => "  \n  " });
        }
    }

    private void Name(StringBuilder json, string name)
    {
        Whitespace(json);
        String(json, _random.Next(300) == 0 ? name.ToUpperInvariant() : name);
        Whitespace(json);
    }

    // Quotes text as JSON, escaping what must be and, in one string in five, a random share of the rest in every form.
    private void String(StringBuilder json, string text)
    {
        json.Append('"');
        var escapeMore = _random.Next(5) == 0;
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (char.IsHighSurrogate(c) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                if (escapeMore && _random.Next(2) == 0)
                {
                    json.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}\\u{(int)text[i + 1]:x4}");
                }
                else
                {
                    json.Append(c).Append(text[i + 1]);
                }

                i++;
            }
            else if (char.IsSurrogate(c))
            {
                // A lone surrogate cannot be sent as UTF-8; escaped, it is refused, so most bodies replace it.
                json.Append(_keepLoneSurrogates ? $"\\u{(int)c:X4}" : "?");
            }
            else if (c < 0x20 || c == '"' || c == '\\' || (escapeMore && _random.Next(3) == 0))
            {
                json.Append(_random.Next(3) == 0 && ShortEscape(c) is { } escape ? escape : _random.Next(2) == 0
                    ? string.Create(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}")
                    : string.Create(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}"));
            }
            else
            {
                json.Append(c);
            }
        }

        json.Append('"');
    }

    private static string? ShortEscape(char c) => c switch
    {
        '"' => "\\\"",
        '\\' => "\\\\",
        '/' => "\\/",
        '\b' => "\\b",
        '\f' => "\\f",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        _ => null,
    };

    private void Guid(StringBuilder json, Guid id)
    {
        var text = id.ToString(_random.Next(40) switch { 0 => "N", 1 => "B", 2 => "P", 3 => "X", _ => "D" }, CultureInfo.InvariantCulture);
        text = _random.Next(3) == 0 ? text.ToUpperInvariant() : text;
        String(json, _random.Next(30) == 0 ? text[..^1] : text);
    }

    private void Instant(StringBuilder json, DateTime created)
    {
        var offset = TimeSpan.FromMinutes(_random.Next(-14 * 60, (14 * 60) + 1));
        var text = _random.Next(12) switch
        {
            0 => created.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture),
            1 => created.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture),
            2 => new DateTimeOffset(created).ToOffset(offset).ToString("yyyy-MM-ddTHH:mm:ss.FFFFFFFzzz", CultureInfo.InvariantCulture),
            3 => created.ToString("yyyy-MM-ddTHH:mm:ss." + new string('f', _random.Next(1, 8)), CultureInfo.InvariantCulture) + (_random.Next(2) == 0 ? "Z" : string.Empty),
            4 => created.ToString("yyyy-MM-ddTHH:mm:ss.fffffff", CultureInfo.InvariantCulture) + new string('1', _random.Next(1, 6)) + "Z",
            5 => created.ToString("yyyy-MM-ddTHH:mm", CultureInfo.InvariantCulture) + (_random.Next(2) == 0 ? "Z" : string.Empty),
            6 => created.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture) + string.Create(CultureInfo.InvariantCulture, $"+{_random.Next(0, 30):00}:{_random.Next(0, 70):00}"),
            7 => created.ToString("yyyy-MM-dd HH:mm:ssZ", CultureInfo.InvariantCulture),
            8 => _random.Next(3) switch { 0 => "0001-01-01T00:00:00+01:00", 1 => "9999-12-31T23:59:59-01:00", _ => "9999-12-31T23:59:59.9999999Z" },
            9 => created.ToString("yyyy-MM-ddTHH:mm:ss.fffZ", CultureInfo.InvariantCulture).ToLowerInvariant(),
            _ => created.ToString("yyyy-MM-ddTHH:mm:ss.FFFFFFFK", CultureInfo.InvariantCulture),
        };
        String(json, text);
    }

    private byte[] Damage(byte[] body)
    {
        var bytes = body.ToList();
        for (var n = _random.Next(1, 4); n > 0 && bytes.Count > 1; n--)
        {
            var at = _random.Next(bytes.Count);
            switch (_random.Next(8))
            {
                case 0:
                    bytes.RemoveRange(at, Math.Min(_random.Next(1, 8), bytes.Count - at));
                    break;
                case 1:
                    bytes.Insert(at, (byte)_random.Next(256));
                    break;
                case 2:
                    bytes.InsertRange(at, Encoding.UTF8.GetBytes(Tokens[_random.Next(Tokens.Length)]));
                    break;
                case 3:
                    bytes[at] = (byte)_random.Next(256);
                    break;
                case 4:
                    bytes.RemoveRange(at + 1, bytes.Count - at - 1);
                    break;
                case 5:
                    bytes.AddRange(Encoding.UTF8.GetBytes(Tokens[_random.Next(Tokens.Length)]));
                    break;
                case 6:
                    bytes.InsertRange(at, [0xEF, 0xBB, 0xBF]);
                    break;
                default:
                    bytes.InsertRange(at, [0xED, 0xA0, 0x80]);
                    break;
            }
        }

        return [.. bytes];
    }
}
#pragma warning restore CA5394
