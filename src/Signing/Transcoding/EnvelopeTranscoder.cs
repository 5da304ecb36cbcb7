using System.Buffers;
using System.IO.Pipelines;

namespace Signing.Transcoding;

/// <summary>
/// Turns a request body straight into the canonical document, without building a <see cref="WidgetEnvelope"/>: the
/// body is tokenized as it arrives, checked as strictly as <see cref="EnvelopeParser"/> checks it, and written as
/// <see cref="CanonicalUtf8Writer"/> would write the parsed envelope.
/// </summary>
/// <remarks>
/// <para>
/// For every body, the outcome is the object path's: the same bytes written, or an <see cref="EnvelopeFormatException"/>
/// with the same message, path, line and position. The differential tests (tests/Signing.Tests/Transcoding), which run
/// both over the same bytes delivered in pieces of every size, hold it to that.
/// </para>
/// <para>
/// Memory: the pipe holds what has arrived and not been consumed, which is at most the largest token plus one read,
/// or a plain widget of up to 1 KiB that the end of a read cut, kept whole so that it can be copied without the
/// tokenizer; the transcoder holds one widget's out-of-order members in pooled memory, and nothing else that grows
/// with the body.
/// A buffer that ends inside a token is read again once at least twice as many bytes have arrived, so a long token
/// costs linear time however small the reads.
/// </para>
/// </remarks>
public static class EnvelopeTranscoder
{
    /// <summary>
    /// Reads <paramref name="body"/> to its end and writes its canonical document to <paramref name="output"/>, in
    /// chunks of a few KB. The reader belongs to the caller and is not completed; after a success it has been advanced
    /// past the whole body, after a failure it may be left mid-read.
    /// </summary>
    /// <param name="body">UTF-8 JSON, read once.</param>
    /// <param name="output">Where the canonical bytes go; a partial document when the body is refused.</param>
    /// <param name="pool">Where memory for out-of-order members and escaped text comes from; null for the shared pool.</param>
    /// <param name="cancellationToken">Cancels the wait for more of the body.</param>
    /// <exception cref="EnvelopeFormatException">The body is not a valid envelope.</exception>
    /// <exception cref="OperationCanceledException">The read was canceled; passed on as the reader threw it.</exception>
    public static async ValueTask<TranscodeSummary> TranscodeAsync(
        PipeReader body,
        IBufferWriter<byte> output,
        ArrayPool<byte>? pool = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(output);

        using var session = new TranscodeSession(output, pool ?? ArrayPool<byte>.Shared);
        var atLeast = 0;
        while (true)
        {
            // Stryker disable once Boolean,Conditional,Equality : ReadAtLeastAsync(0) waits for anything, as ReadAsync does;
            // ConfigureAwait(true) differs only under a synchronization context, which neither host has.
            var read = atLeast > 0
                ? await body.ReadAtLeastAsync(atLeast, cancellationToken).ConfigureAwait(false)
                : await body.ReadAsync(cancellationToken).ConfigureAwait(false);
            if (read.IsCanceled)
            {
                throw new OperationCanceledException("The read of the body was canceled.");
            }

            var buffer = read.Buffer;
            if (read.IsCompleted && buffer.IsEmpty && session.BodyBytes == 0)
            {
                body.AdvanceTo(buffer.End);
                return session.Summary;
            }

            var consumed = session.Read(buffer, read.IsCompleted);
            if (session.SyntaxErrorPending)
            {
                // The error is reported over what the session has not accepted, with context after it when more comes.
                // Stryker disable once Statement : without it the read below finds the body complete, and the same error
                // is thrown over the same bytes.
                if (read.IsCompleted)
                {
                    session.ThrowSyntaxError(buffer.Slice(consumed), isFinalBlock: true);
                }

                var unread = buffer.Slice(consumed).Length;
                body.AdvanceTo(consumed, buffer.End);

                // Stryker disable once Boolean : ConfigureAwait(true) differs only under a synchronization context.
                read = await body.ReadAtLeastAsync((int)Math.Min(int.MaxValue - TranscodeSession.SyntaxContextBytes, unread) + TranscodeSession.SyntaxContextBytes, cancellationToken).ConfigureAwait(false);
                session.ThrowSyntaxError(read.Buffer, read.IsCompleted);
            }

            body.AdvanceTo(consumed, buffer.End);
            if (read.IsCompleted)
            {
                return session.Summary;
            }

            // Nothing consumed: the buffer ends inside one token. Wait for twice as much before reading it again.
            atLeast = consumed.Equals(buffer.Start) ? (int)Math.Min(int.MaxValue, 2 * buffer.Length) : 0;
        }
    }
}
