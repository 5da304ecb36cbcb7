using System.Buffers;
using System.Security.Cryptography;

namespace Signing.WireFloor;

/// <summary>
/// The floor's endpoint: reads <see cref="HttpRequest.BodyReader"/> to its end, feeds every segment Kestrel hands over
/// straight to one HMAC-SHA256, and writes the 64 hex characters. No copy of the body, no parsing, no checks, no
/// budget: what is left is the cost of the socket, Kestrel's HTTP/1.1 parsing and pipe, hashing each byte once and a
/// response, which every signing request pays whatever its strategy.
/// </summary>
/// <remarks>
/// The HMAC state is made per request (a few microseconds, against about a millisecond to hash a 1 MB body), where
/// <c>transcode</c> reuses a per-thread one: the floor stays the plainest code that does the job, and the difference
/// is below what a load run resolves.
/// </remarks>
internal sealed class DrainAndHmac(byte[] key)
{
    /// <summary>Hashes the body as it arrives and answers 200 with the signature as text.</summary>
    public async Task HandleAsync(HttpContext context)
    {
        var body = context.Request.BodyReader;
        using var hash = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key);
        while (true)
        {
            var read = await body.ReadAsync(context.RequestAborted);
            Append(hash, read.Buffer);
            body.AdvanceTo(read.Buffer.End);
            if (read.IsCompleted || read.IsCanceled)
            {
                break;
            }
        }

        context.Response.ContentType = "text/plain";
        await context.Response.WriteAsync(Hex(hash), context.RequestAborted);
    }

    private static string Hex(IncrementalHash hash)
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        hash.GetHashAndReset(mac);
        return Convert.ToHexStringLower(mac);
    }

    private static void Append(IncrementalHash hash, ReadOnlySequence<byte> buffer)
    {
        foreach (var segment in buffer)
        {
            hash.AppendData(segment.Span);
        }
    }
}
