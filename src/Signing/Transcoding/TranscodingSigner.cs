using System.Buffers;
using System.IO.Pipelines;
using System.Security.Cryptography;
using Signing.Hashing;
using Signing.Strategies;

namespace Signing.Transcoding;

/// <summary>
/// Signs a request body straight from the wire: <see cref="EnvelopeTranscoder"/> writes the canonical bytes as the body
/// arrives, and they are hashed a chunk at a time, so neither the body nor a <see cref="WidgetEnvelope"/> nor the
/// canonical document ever exists whole. Given several keys, one pass signs with each of them, for a verify during a
/// key rotation (a body can only be read once).
/// </summary>
/// <remarks>
/// <para>
/// Named <c>transcode</c> because it turns input JSON into canonical JSON token by token instead of parsing and
/// re-serializing. It signs the same bytes as every other strategy and refuses the same bodies with the same errors
/// as <see cref="EnvelopeParser"/>; the differential tests hold it to both.
/// </para>
/// <para>
/// Time: a widget whose values are all plain ASCII strings without escapes, each member given once (in any order,
/// with any whitespace), is checked and written from its bytes without the tokenizer, so such a body costs less than
/// tokenizing it would; any other widget costs what tokenizing it, checking each value and writing it cost
/// (docs/benchmarks.md, questions 4 and 5).
/// </para>
/// <para>
/// Allocation per sign does not depend on the body: the signature strings and their array, the array of hash states,
/// a small sink object, the transcoder's state and, when a read does not complete at once, the two async state
/// machines. Measured with the body read synchronously 4 KB at a time, that is 1,288 bytes whether the envelope has 30
/// widgets or 30,000 (10.8 MB), in canonical order or not (tests/Signing.Tests/Transcoding/TranscoderAllocationTests).
/// The 16 KB chunk between the transcoder and the hashes, and the memory that holds one widget's out-of-order members
/// or a long escaped string while it is unescaped, are rented from the pool and returned on every path, failure and
/// cancellation included; a body in canonical order rents only the chunk. HMAC states come from the per-thread
/// <see cref="HmacCache"/>, so signing in a loop creates none. What the pipe buffers (at most the largest token plus a
/// read, or a cut plain widget of up to 1 KiB: <see cref="EnvelopeTranscoder"/>) is the reader's.
/// </para>
/// </remarks>
public sealed class TranscodingSigner
{
    /// <summary>The name callers use in <c>?strategy=</c>.</summary>
    public const string StrategyName = "transcode";

    private readonly SigningKey[] _keys;
    private readonly ArrayPool<byte> _pool;

    /// <summary>A signer with one key, renting from <paramref name="pool"/> (null for the shared pool).</summary>
    public TranscodingSigner(SigningKey key, ArrayPool<byte>? pool = null)
        : this([key], pool)
    {
    }

    /// <summary>
    /// A signer that signs every body with each of <paramref name="keys"/> (at least one), in one pass, renting from
    /// <paramref name="pool"/> (null for the shared pool).
    /// </summary>
    public TranscodingSigner(IReadOnlyList<SigningKey> keys, ArrayPool<byte>? pool = null)
    {
        ArgumentNullException.ThrowIfNull(keys);
        // The type is spelled out so that Stryker's mutants of the argument still compile.
        ArgumentOutOfRangeException.ThrowIfZero<int>(keys.Count);
        _keys = [.. keys];
        foreach (var key in _keys)
        {
            ArgumentNullException.ThrowIfNull(key, nameof(keys));
        }

        _pool = pool ?? ArrayPool<byte>.Shared;
    }

    /// <summary>
    /// Reads <paramref name="body"/> to its end and signs its canonical form with each key. Safe to call concurrently;
    /// the reader belongs to the caller and is not completed.
    /// </summary>
    /// <exception cref="EnvelopeFormatException">The body is not a valid envelope.</exception>
    /// <exception cref="OperationCanceledException">The read was canceled; passed on as the reader threw it.</exception>
    public async ValueTask<TranscodeResult> SignAsync(PipeReader body, CancellationToken cancellationToken = default)
    {
        var hashes = new IncrementalHash[_keys.Length];
        var taken = 0;
        var returned = 0;
        var buffer = _pool.Rent(Utf8Signer.ChunkBytes);
        try
        {
            for (; taken < hashes.Length; taken++)
            {
                hashes[taken] = HmacCache.Take(_keys[taken]);
            }

            // Stryker disable once Conditional : the sink for several hashes feeds one just as well, only through a loop.
            var sink = hashes.Length == 1 ? new HmacSink(hashes[0], buffer) : new HmacSink(hashes, buffer);

            // Stryker disable once Boolean : ConfigureAwait(true) differs only under a synchronization context.
            var summary = await EnvelopeTranscoder.TranscodeAsync(body, sink, _pool, cancellationToken).ConfigureAwait(false);
            if (summary.IsEmptyBody)
            {
                // Nothing was fed to the hashes: they go back clean.
                for (; returned < hashes.Length; returned++)
                {
                    HmacCache.Keep(hashes[returned], _keys[returned]);
                }

                return new TranscodeResult([], 0, 0, 0);
            }

            sink.Flush();
            var signatures = new string[hashes.Length];
            for (; returned < hashes.Length; returned++)
            {
                signatures[returned] = HmacCache.Finish(hashes[returned], _keys[returned]);
            }

            return new TranscodeResult(signatures, summary.BytesWritten, summary.WidgetCount, summary.BodyBytes);
        }
        finally
        {
            _pool.Return(buffer);

            // A failed sign leaves data in the hashes it fed: destroy them rather than let a later sign start from it.
            for (var i = returned; i < taken; i++)
            {
                hashes[i].Dispose();
            }
        }
    }
}
