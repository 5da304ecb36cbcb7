using System.Security.Cryptography;
using Signing.Http.Access;

namespace SigningServer.Tests.Keys;

/// <summary>
/// The access-key comparison itself: a key matches only as a whole, and what is compared is always two SHA-256 digests,
/// once per configured key, whatever the presented key's length and whether an earlier key already matched, so the
/// time of a check says neither how long a key is, nor how much of it was right, nor which key matched.
/// </summary>
public sealed class AccessKeysComparisonTests
{
    private const string Short = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    private const string Long = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    public static TheoryData<string?, bool> Presented() => new()
    {
        { Short, true },
        { Long, true },
        { null, false },
        { string.Empty, false },
        { Short[..^1], false },
        { Short + "a", false },
        { Long[..Short.Length], false },
        { Short.ToUpperInvariant(), false },
        { new string('c', 5000), false },
        { "é" + Short[1..], false },
    };

    [Theory]
    [MemberData(nameof(Presented))]
    public void Only_a_whole_key_matches(string? presented, bool matches)
    {
        var keys = new AccessKeys([Short, Long]);

        Assert.Equal(matches, keys.Matches(presented));
    }

    [Theory]
    [MemberData(nameof(Presented))]
    public void Every_key_is_compared_as_two_32_byte_digests_whatever_is_presented(string? presented, bool matches)
    {
        var compared = new List<(int Left, int Right)>();
        var keys = new AccessKeys([Short, Long], (left, right) =>
        {
            compared.Add((left.Length, right.Length));
            return CryptographicOperations.FixedTimeEquals(left, right);
        });

        Assert.Equal(matches, keys.Matches(presented));

        // Nothing presented is refused before any comparison; anything else is compared with both keys, the first key
        // too when it matched, and always as digests of one length.
        var expected = string.IsNullOrEmpty(presented) ? 0 : 2;
        Assert.Equal(expected, compared.Count);
        Assert.All(compared, c => Assert.Equal((SHA256.HashSizeInBytes, SHA256.HashSizeInBytes), c));
    }

    [Fact]
    public void The_comparison_is_what_decides_not_a_shortcut_around_it()
    {
        // A comparer that says no to everything: a key that still matched would have been decided elsewhere, such as by
        // an ordinary string comparison first.
        var keys = new AccessKeys([Short], (_, _) => false);

        Assert.False(keys.Matches(Short));
    }

    [Fact]
    public void A_key_configured_under_two_names_matches()
    {
        // The same key under two names (kept under the old name while it is moved to a new one) is compared twice and
        // matches twice; a match stays a match, it is not undone by the second.
        var keys = new AccessKeys([Short, Short]);

        Assert.True(keys.Matches(Short));
    }

    [Fact]
    public void The_whitespace_around_a_configured_key_is_no_part_of_it()
    {
        // A key read from a file ends in a newline, and HTTP drops the spaces around a header's value: kept, they locked
        // every client out. What is presented is compared as it comes.
        var keys = new AccessKeys(["  " + Short + "\n"]);

        Assert.True(keys.Matches(Short));
        Assert.False(keys.Matches("  " + Short + "\n"));
    }

    [Fact]
    public void Without_keys_nothing_matches_and_the_endpoints_are_open()
    {
        var keys = new AccessKeys([]);

        Assert.True(keys.IsOpen);
        Assert.False(keys.Matches(Short));
    }
}
