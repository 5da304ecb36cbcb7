using System.Buffers;
using System.IO.Pipelines;

namespace SigningServer.Tests.Reading;

/// <summary>
/// The host's body reader as strict as Kestrel's: one read at a time, each ended by one advance. A read begun while one
/// is held fails with "Reading is already in progress.", and an advance with no read held with "No reading operation to
/// complete.", as Kestrel's do when it drains a body; a plain <see cref="Pipe"/>'s reader lets both pass.
/// </summary>
internal sealed class KestrelStyleBodyReader(PipeReader inner) : PipeReader
{
    private bool _reading;

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        BeginRead();
        return inner.ReadAsync(cancellationToken);
    }

    public override bool TryRead(out ReadResult result)
    {
        BeginRead();
        _reading = inner.TryRead(out result);
        return _reading;
    }

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        if (!_reading)
        {
            throw new InvalidOperationException("No reading operation to complete.");
        }

        _reading = false;
        inner.AdvanceTo(consumed, examined);
    }

    public override void CancelPendingRead() => inner.CancelPendingRead();

    public override void Complete(Exception? exception = null) => inner.Complete(exception);

    private void BeginRead()
    {
        if (_reading)
        {
            throw new InvalidOperationException("Reading is already in progress.");
        }

        _reading = true;
    }
}
