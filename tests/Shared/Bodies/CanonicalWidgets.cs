using System.Text;

namespace Signing.Tests.Bodies;

/// <summary>
/// Places in a canonical body (every widget written as <c>{"id":"…",</c> with its Guid first), for tests that cut it
/// inside a widget or damage one widget far into it, so that transcode meets the cut or the damage in a later read.
/// </summary>
internal static class CanonicalWidgets
{
    // A canonical widget's bytes before its first string member: its brace, the Guid's member and the comma after it.
    private const int HeadLength = 7 + 36 + 2;

    /// <summary>Where the <paramref name="widget"/>-th widget (from 0) of <paramref name="body"/> starts: its opening brace.</summary>
    public static int Start(byte[] body, int widget)
    {
        var start = -1;
        for (var i = 0; i <= widget; i++)
        {
            start += 1 + body.AsSpan(start + 1).IndexOf("{\"id\":"u8);
        }

        return start;
    }

    /// <summary>
    /// <paramref name="body"/> with the <paramref name="widget"/>-th widget's head (its brace, Guid and the comma after
    /// it) replaced by <paramref name="head"/>.
    /// </summary>
    public static byte[] WithHead(byte[] body, int widget, string head)
    {
        var start = Start(body, widget);
        return [.. body.AsSpan(0, start), .. Encoding.UTF8.GetBytes(head), .. body.AsSpan(start + HeadLength)];
    }
}
