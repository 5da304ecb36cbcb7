using System.Text;
using Newtonsoft.Json;
using Signing.Generation;
using Signing.Tests.Transcoding.Harness;

namespace Signing.Tests.Transcoding;

/// <summary>
/// The transcoder writes a plain widget from its bytes without tokenizing it (PlainWidget) and goes on tokenizing
/// after it. These bodies sit on the edge of plainness, in canonical layout and in others, so that every way of leaving
/// it, and every error after a copied widget (whose line and column the transcoder counts itself), is answered as the
/// object path answers.
/// </summary>
public sealed class PlainWidgetEquivalenceTests
{
    // Bytes that end, break or bend the shape: delimiters, hex digits either side of a Guid's range, the instant's
    // letters, JSON's whitespace and bytes that are whitespace elsewhere, a comment's start, control characters, DEL,
    // and the starts of longer UTF-8 characters.
    private static readonly byte[] Damage =
        [.. "\"\\{}[],:0 9aAfFgG-TtZz.+ \n\r\t\f\v/"u8, 0x00, 0x1F, 0x7F, 0x80, 0xA0, 0xC2, 0xC3, 0xE2, 0xF0, 0xFF];

    [Fact]
    public void Canonical_bodies_damaged_at_any_byte_are_answered_alike()
    {
        // Damage past the first widgets lands after copied ones, so an error's column is the transcoder's own count.
        AssertDamagedAlike(Bodies.Canonical(6, seed: 7), seed: 1);
    }

    [Theory]
    [InlineData(300)]
    [InlineData(701)]
    public void Canonical_bodies_damaged_at_any_byte_and_cut_into_segments_are_answered_alike(int segment)
    {
        // Segments shorter than two widgets, as Kestrel's are: almost every widget crosses a segment's end and is joined
        // across the cut before it is copied, so damage in it, or after it, is met on that path.
        var differences = Damaged(Bodies.Canonical(6, seed: 7), seed: 5)
            .Select(body => Answer.Difference(BothPaths.ObjectPath(body), BothPaths.Transcoder(new SteppedPipeReader(body, segment), body.Length)))
            .Where(difference => difference is not null)
            .ToList();

        Assert.True(differences.Count == 0, $"{differences.Count} differ; the first: {differences.FirstOrDefault()}");
    }

    [Fact]
    public void Canonical_widgets_on_lines_of_their_own_damaged_at_any_byte_are_answered_alike()
    {
        // Line feeds between copied widgets: an error's line is counted across widgets the tokenizer never read.
        var compact = Encoding.UTF8.GetString(Bodies.Canonical(6, seed: 8));
        var widgets = compact["{\"widgets\":[".Length..^"]}".Length].Replace("},{", "},\n  \r\n{", StringComparison.Ordinal);
        AssertDamagedAlike(Encoding.UTF8.GetBytes("{\"widgets\":[\n" + widgets + "\n]}\n"), seed: 2);
    }

    [Fact]
    public void Indented_bodies_damaged_at_any_byte_are_answered_alike()
    {
        // Whitespace and line feeds between every token: plain widgets in another layout, written member by member.
        var envelope = EnvelopeGenerator.Create(4, seed: 9);
        AssertDamagedAlike(CanonicalJson.Utf8.GetBytes(JsonConvert.SerializeObject(envelope, Formatting.Indented, CanonicalJson.Settings)), seed: 3);
    }

    [Fact]
    public void Bodies_with_members_reversed_damaged_at_any_byte_are_answered_alike()
    {
        // Plain widgets with their members in another order: any damage that makes one unplain hands it to the tokenizer.
        AssertDamagedAlike(Bodies.Reversed(5, seed: 10), seed: 4);
    }

    [Fact]
    public void Plain_widgets_in_any_order_and_layout_are_answered_alike()
    {
        // Members shuffled, whitespace of every kind anywhere between tokens, a member doubled, missing or unknown.
#pragma warning disable CA5394 // Not for security: reproducible bodies.
        var random = new Random(5);
        var bodies = new List<string>();
        for (var i = 0; i < 300; i++)
        {
            var members = EnvelopeJson.Members.OrderBy(_ => random.Next()).ToList();
            switch (i % 10)
            {
                case 7:
                    members.Add(members[random.Next(members.Count)]);
                    break;
                case 8:
                    members.RemoveAt(random.Next(members.Count));
                    break;
                case 9:
                    members[random.Next(members.Count)] = "property10";
                    break;
            }

            string Space() => new[] { "", " ", "\n", "\r\n", "\t", "  \n  ", "\f", "\v", "\u00a0" }[random.Next(9)];
            var widget = "{" + Space() + string.Join("," + Space(), members.Select(m => $"\"{m}\"{Space()}:{Space()}{EnvelopeJson.ValidValue(m)}{Space()}")) + "}";
            bodies.Add(EnvelopeJson.Envelope(EnvelopeJson.Widget(), widget + Space(), EnvelopeJson.Widget()));
        }
#pragma warning restore CA5394

        BothPaths.AssertSame(bodies);
    }

    [Fact]
    public void Awkward_text_in_canonical_order_is_answered_alike()
    {
        // Escapes, non-ASCII and control characters in otherwise canonical widgets: the shape refuses them, the
        // tokenizer reads them, and the widgets on either side are copied.
        BothPaths.AssertSame(Enumerable.Range(0, 40).Select(seed => Bodies.Canonical(5, seed, GeneratedText.Awkward)));
    }

    [Theory]
    [InlineData("\"6F9619FF-8B86-D011-B42D-00CF4FC964FF\"")]
    [InlineData("\"6f9619ff-8b86-d011-b42d-00cf4fc964fG\"")]
    [InlineData("\"6f9619ff8b86-d011-b42d-00cf4fc964ff0\"")]
    [InlineData("\"{6f9619ff-8b86-d011-b42d-00cf4fc964ff}\"")]
    [InlineData("\"6f9619ff-8b86-d011-b42d-00cf4fc964f\"")]
    [InlineData("\"6f9619ff-8b86-d011-b42d-00cf4fc964fff\"")]
    [InlineData("\" 6f9619ff-8b86-d011-b42d-00cf4fc964f\"")]
    [InlineData("\"+f9619ff-8b86-d011-b42d-00cf4fc964ff\"")]
    public void Guids_near_the_shape_are_answered_alike(string id) =>
        BothPaths.AssertSame(Between(EnvelopeJson.Widget("id", id)));

    [Theory]
    [InlineData("2024-03-10T10:34:56Z")]
    [InlineData("2024-03-10T10:34:56.5Z")]
    [InlineData("2024-03-10T10:34:56.1234567Z")]
    [InlineData("2024-03-10T10:34:56.12345678Z")]
    [InlineData("2024-03-10T10:34:56.000Z")]
    [InlineData("2024-03-10T10:34:56.7890Z")]
    [InlineData("2024-03-10T10:34:56+01:30")]
    [InlineData("2024-03-10T00:10:00-05:00")]
    [InlineData("2024-03-10T10:34:56")]
    [InlineData("2024-03-10T10:34")]
    [InlineData("2024-03-10")]
    [InlineData("2024-02-29T23:59:59Z")]
    [InlineData("2023-02-29T23:59:59Z")]
    [InlineData("2024-03-10T24:00:00Z")]
    [InlineData("2024-03-10T23:59:60Z")]
    [InlineData("2024-03-10t10:34:56z")]
    [InlineData("2024-03-10 10:34:56Z")]
    [InlineData("0001-01-01T00:00:00Z")]
    [InlineData("0000-01-01T00:00:00Z")]
    [InlineData("2024-13-10T10:34:56Z")]
    [InlineData("2024-00-10T10:34:56Z")]
    [InlineData("2024-03-00T10:34:56Z")]
    [InlineData("2024-04-31T10:34:56Z")]
    [InlineData("2024-03-10T10:60:56Z")]
    [InlineData("2024-03-10T10:34:56.Z")]
    [InlineData("2024-03-10T10:34:56.1x3Z")]
    [InlineData("2024-03-10T10:34:56.10Z")]
    [InlineData("2024-0a-10T10:34:56Z")]
    [InlineData("9999-12-31T23:59:59.9999999Z")]
    [InlineData("0001-01-01T00:00:00+01:00")]
    [InlineData("")]
    public void Instants_near_the_shape_are_answered_alike(string instant) =>
        BothPaths.AssertSame(Between(EnvelopeJson.Widget("createdUtc", "\"" + instant + "\"")));

    // The widget between two that are copied, so that it is reached after a copy and one is tried after it.
    private static IEnumerable<string> Between(string widget) =>
        [EnvelopeJson.Envelope(EnvelopeJson.Widget(), widget, EnvelopeJson.Widget()), EnvelopeJson.Envelope(widget)];

    // Every position once with a damaging byte, then more at random: replaced, inserted or removed.
    private static void AssertDamagedAlike(byte[] body, int seed) => BothPaths.AssertSame(Damaged(body, seed), seed);

    // The body damaged at every byte, then at 500 random places with a byte inserted or removed.
    private static List<byte[]> Damaged(byte[] body, int seed)
    {
#pragma warning disable CA5394 // Not for security: reproducible damage.
        var random = new Random(seed);
        var bodies = new List<byte[]>();
        for (var at = 0; at < body.Length; at++)
        {
            var damaged = (byte[])body.Clone();
            damaged[at] = Damage[random.Next(Damage.Length)];
            bodies.Add(damaged);
        }

        for (var i = 0; i < 500; i++)
        {
            var at = random.Next(body.Length);
            var value = random.Next(2) == 0 ? Damage[random.Next(Damage.Length)] : (byte)random.Next(256);
            bodies.Add(random.Next(2) == 0 ? [.. body[..at], value, .. body[at..]] : [.. body[..at], .. body[(at + 1)..]]);
        }
#pragma warning restore CA5394

        return bodies;
    }
}
