using Signing;
using Signing.Generation;

// Usage: dotnet run --project src/Signing.Payload -- [--widgets N] [--seed N] [--out FILE]
// Writes the envelope as canonical JSON, so the file is also exactly the bytes the service signs.
var widgets = 3000;
var seed = 1;
string? output = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--widgets" when i + 1 < args.Length && int.TryParse(args[i + 1], out var n) && n >= 0:
            widgets = n;
            i++;
            break;
        case "--seed" when i + 1 < args.Length && int.TryParse(args[i + 1], out var s):
            seed = s;
            i++;
            break;
        case "--out" when i + 1 < args.Length:
            output = args[++i];
            break;
        default:
            await Console.Error.WriteLineAsync($"Unknown or incomplete argument '{args[i]}'. Usage: [--widgets N] [--seed N] [--out FILE]");
            return 2;
    }
}

output ??= $"payload-{widgets}.json";
var envelope = EnvelopeGenerator.Create(widgets, seed);
await using (var file = File.Create(output))
{
    CanonicalJson.Write(envelope, file);
}

Console.WriteLine($"Wrote {widgets} widgets (seed {seed}), {new FileInfo(output).Length:N0} bytes, to {output}");
return 0;
