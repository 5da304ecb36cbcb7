using System.Buffers;
using System.Text;
using System.Text.Json;

namespace Signing.Transcoding;

/// <content>
/// The fast path: plain widgets (<see cref="PlainWidget"/>) written from their bytes instead of tokenized, and a widget
/// that the end of a segment cuts, joined across the cut or checked in the staged copy.
/// </content>
internal sealed partial class TranscodeSession
{
    // The most bytes of a plain widget, with the separator before it, that are joined on the stack when a segment's end
    // cuts the widget: a generated widget takes about 360. A longer one is read with the tokenizer, as before.
    private const int MaxCutWidget = 1024;

    // The least output span widgets in canonical layout are copied into to be checked (CopyStaged): a block of Kestrel's.
    private const int MinStage = 4096;

    // A body that ends with a widget's closing brace, on line 0 at column WidgetEnd.Length.
    private static ReadOnlySpan<byte> WidgetEnd => "{\"widgets\":[{\"id\":\"\"}"u8;

    // A tokenizer's state just after a widget's closing brace, for the tokenizer to go on from after a widget it did not
    // read (PlainWidget). States at any two such points differ only in the line and column they count from, and this
    // one counts from line 0, column WidgetEnd.Length.
    private static readonly JsonReaderState WidgetEndState = StateAfter(WidgetEnd);

    // Writes the widget whose opening brace the reader has just read, if it is plain, and the plain widgets that follow
    // it, then moves the reader past them; leaves both alone if the first is not plain.
    private bool CopyPlainWidgets(ref Utf8JsonReader reader, ref BufferCursor cursor)
    {
        var start = (int)(_readerStart + reader.TokenStartIndex);

        // Stryker disable once Arithmetic : only spares a second attempt at a widget already refused.
        if (_offset + start == _plainRefusedAt)
        {
            // Already found not to be, as the widget after the last one copied.
            return false;
        }

        var buffer = _buffer.FirstSpan;
        var length = PlainWidget.Copy(buffer[start..], comma: false, int.MaxValue, ref cursor, out var widgets, out var canonical);

        // Stryker disable once Equality : Copy never returns 0.
        if (length < 0)
        {
            return false;
        }

        CountCopied(buffer, start, length, widgets, canonical);
        var end = CopyFollowing(buffer, start + length, ref cursor);

        // The tokenizer goes on after the last widget copied, from the state it would be in there, with its count of
        // lines and columns moved to the body's.
        _readerStart = end;
        CountLines(buffer[(int)_countedTo..end], ref _countedLines, ref _countedLineStart, _offset + _countedTo);
        _countedTo = end;
        ShiftAfterWidget(_countedLines, _countedLineStart, _offset + end);
        reader = new Utf8JsonReader(buffer[end..], _isFinalBlock, WidgetEndState);
        return true;
    }

    // Writes the plain widgets that follow, one after another, the widget that ends just before end, and returns where
    // the last one written ends (end when none is). A next widget that the end of a piece with more to come cuts is left
    // for Read to join across the cut (_widgetCut); a piece stopped short there holds at most MaxCutWidget bytes more
    // than the tokenizer would.
    private int CopyFollowing(ReadOnlySpan<byte> buffer, int end, ref BufferCursor cursor)
    {
        while (
            // Stryker disable once Boolean : without the loop the tokenizer reads on after the widget, and hands the
            // plain widgets it meets back to be copied: the same bytes, only slower.
            true)
        {
            var next = PlainWidget.Following(buffer, end);

            // Stryker disable once Equality : Following never returns 0.
            if (next < 0)
            {
                break;
            }

            // A widget the piece's end cuts is left for Read to join rather than tried here and refused.
            // Stryker disable once Block,Boolean,Statement : Copy refuses a widget that is not all there, only later, and a
            // whole widget left here is read by the tokenizer, which hands it straight back.
            if (IsCut(buffer, next, _isFinalBlock))
            {
                break;
            }

            var length = PlainWidget.Copy(buffer[next..], comma: true, int.MaxValue, ref cursor, out var widgets, out var canonical);

            // Stryker disable once Equality : Copy never returns 0.
            if (length < 0)
            {
                // Stryker disable once Arithmetic : only spares a second attempt at a widget already refused.
                _plainRefusedAt = _offset + next;
                break;
            }

            CountCopied(buffer, next, length, widgets, canonical);
            end = next + length;
        }

        _widgetCut = IsCut(buffer, end, _isFinalBlock);
        return end;
    }

    // Counts the widgets copied from the length bytes at at, and their line feeds unless they have none.
    private void CountCopied(ReadOnlySpan<byte> buffer, int at, int length, int widgets, bool canonical)
    {
        _index += widgets;
        _plainWidgets += widgets;

        // Stryker disable once Block,Statement : counting the line feeds of canonical widgets too gives the same count.
        if (canonical)
        {
            PassWithoutLines(buffer, at, length);
        }
    }

    // Counts the line feeds before at, and moves the count past the length bytes from at without reading them: widgets in
    // canonical layout hold none, and reading them again for line feeds would cost as much as checking them did.
    private void PassWithoutLines(ReadOnlySpan<byte> buffer, int at, int length)
    {
        CountLines(buffer[(int)_countedTo..at], ref _countedLines, ref _countedLineStart, _offset + _countedTo);
        _countedTo = at + length;
    }

    // Sets the shift that turns the line and column of a tokenizer going on from WidgetEndState into the body's, for one
    // that goes on at the body's offset at, a widget's end, on the line that is the body's lines-th and starts at
    // lineStart.
    private void ShiftAfterWidget(long lines, long lineStart, long at)
    {
        _lineShift = lines;
        _columnShift = at - lineStart - WidgetEnd.Length;
    }

    // Whether the end of a piece with more to come cuts the widget that starts at (or after) start, within MaxCutWidget
    // bytes: such a widget is not all there to be copied, and is left for Read to join across the cut.
    private static bool IsCut(ReadOnlySpan<byte> buffer, int start, bool isFinalBlock) =>
        !isFinalBlock && buffer.Length - start <= MaxCutWidget && !buffer[start..].Contains((byte)'}');

    // Copies the bytes at the start of rest (a cut widget's separator, the widget and whatever follows) into the output,
    // and keeps the run of them that is widgets in canonical layout, after that comma: their canonical bytes are their
    // own, so the copy is already the output, and checking it there reads the widgets in one span, never joined across
    // the ends of rest's segments or walked twice. Moves past them as CopyCutWidget moves past its widget (the
    // tokenizer's state is at a widget's end already, where the cut was found); returns the bytes they take, or 0
    // (nothing written) when the first is not one. A span of the output at most is taken at a time, and the widget its
    // end cuts is left for the next.
    private int CopyStaged(ReadOnlySequence<byte> rest, bool isFinalBlock, ref BufferCursor cursor)
    {
        // The comma, which the walk below does not see; and a widget in any other layout (whitespace around it, its
        // members in another order) mostly shows it in its first bytes, which the segment has: nothing is copied for it.
        if (!StartsCanonicalWidget(rest.FirstSpan))
        {
            return 0;
        }

        // Stryker disable once Arithmetic,Linq : a smaller span only cuts more widgets, each copied all the same.
        var span = cursor.Reserve(MinStage);
        var stage = span[..(int)Math.Min(rest.Length, span.Length)];
        rest.Slice(0, stage.Length).CopyTo(stage);
        var run = CanonicalRun.Measure(stage[1..], int.MaxValue, afterCut: true, out var widgets, out var upperCaseGuid);

        // Stryker disable once Equality : Measure never returns less than 0.
        if (run <= 0)
        {
            return 0;
        }

        if (upperCaseGuid >= 0)
        {
            // The run ends with the widget whose Guid is in upper case; the tokenizer goes on after it.
            Ascii.ToLowerInPlace(stage.Slice(1 + upperCaseGuid, CanonicalRun.GuidLength), out _);
        }

        var taken = 1 + run;
        cursor.Advance(taken);
        _index += widgets;
        _plainWidgets += widgets;

        // Canonical widgets and the comma before them hold no line feed.
        ShiftAfterWidget(_lines, _lineStart, _offset + taken);
        _offset += taken;

        // Stryker disable once Equality : a widget that the end of a body's last bytes cuts is not all there whatever is
        // said of it, and one that a full span's end cuts is read by the tokenizer when not left for the next span.
        _widgetCut = IsCut(stage, taken, isFinalBlock && stage.Length == rest.Length);
        return taken;
    }

    // Whether bytes, from a cut widget's separator on, start as a widget in canonical layout does after its comma, as far
    // as they go: the comma, then the widget's start up to its Guid.
    private static bool StartsCanonicalWidget(ReadOnlySpan<byte> bytes)
    {
        var start = WidgetMembers.Prefix(WidgetMembers.Id);
        var length = Math.Min(bytes.Length - 1, start.Length);
        return bytes.StartsWith((byte)',') && bytes.Slice(1, length).SequenceEqual(start[..length]);
    }

    // Writes the plain widget that the end of the last piece cut (see _widgetCut), joined on the stack from the start of
    // rest, and moves past it as CopyPlainWidgets moves past the widgets it copies; returns the bytes it took, or 0, and
    // writes nothing, when the widget is not plain or not all within MaxCutWidget bytes.
    private int CopyCutWidget(ReadOnlySequence<byte> rest, ref BufferCursor cursor)
    {
        Span<byte> joined = stackalloc byte[MaxCutWidget];
        var bytes = joined[..(int)Math.Min(rest.Length, MaxCutWidget)];

        // Copied segment by segment from the start: slicing rest first would walk all of its segments.
        new SequenceReader<byte>(rest).TryCopyTo(bytes);
        var start = PlainWidget.Following(bytes, 0);

        // Stryker disable once Equality : Following never returns 0.
        if (start < 0)
        {
            return 0;
        }

        // That widget alone: the widgets after it are copied from the segment, not from this copy of its start, and one
        // that this copy's end cut would be left to the tokenizer.
        var widget = PlainWidget.Copy(bytes[start..], comma: true, most: 1, ref cursor, out _, out var canonical);

        // Stryker disable once Equality : Copy never returns 0.
        if (widget < 0)
        {
            return 0;
        }

        var end = start + widget;
        _index++;
        _plainWidgets++;
        // A widget in canonical layout holds no line feed: only the bytes before it are counted.
        // Stryker disable once Conditional : counting the canonical widget's bytes too finds no line feed in them.
        CountLines(bytes[..(canonical ? start : end)], ref _lines, ref _lineStart, _offset);
        ShiftAfterWidget(_lines, _lineStart, _offset + end);
        _offset += end;
        _state = WidgetEndState;
        return end;
    }

    // Writes the plain widgets that follow, in segment, a widget just joined across a cut (CopyCutWidget), as
    // CopyPlainWidgets writes those after the tokenizer's widget, and moves past them as CopyCutWidget moves past its
    // widget, leaving the tokenizer's state as that left it; returns the bytes they take, 0 when the next widget is not
    // one. The segment is not the buffer's last.
    private int CopyAfterCutWidget(ReadOnlySpan<byte> segment, ref BufferCursor cursor)
    {
        // IsCut's _isFinalBlock is false, as it is wherever a cut widget was found: only in a piece with more to come.
        (_countedTo, _countedLines, _countedLineStart) = (0, _lines, _lineStart);
        var end = CopyFollowing(segment, 0, ref cursor);
        CountLines(segment[(int)_countedTo..end], ref _countedLines, ref _countedLineStart, _offset + _countedTo);
        (_lines, _lineStart) = (_countedLines, _countedLineStart);
        ShiftAfterWidget(_lines, _lineStart, _offset + end);
        _offset += end;
        return end;
    }
}
