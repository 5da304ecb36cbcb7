using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Unicode;

namespace Signing.Transcoding;

/// <summary>
/// One body's transcoding, fed a buffer at a time: tokenizes with <see cref="Utf8JsonReader"/>, checks each token as
/// <see cref="EnvelopeParser"/> would (the same errors, in the same order), and writes the canonical bytes as it goes.
/// </summary>
/// <remarks>
/// <para>
/// The reader's state is carried from one buffer to the next, so a token may end in a later buffer than it started
/// in; a buffer stops being read at the last whole token and the rest is read again with more bytes.
/// </para>
/// <para>
/// System.Text.Json reports a problem when it meets it, reading in order: a property name that is not a member as soon
/// as the name is read, a wrong value at the value, a duplicate once the duplicate's value has been read, a missing
/// member at the end of its object, trailing content after the root, and a <c>null</c> widget (which the serializer
/// accepts and <see cref="EnvelopeParser"/> refuses afterwards) only once the whole body has been read. The phases
/// below check the same things at the same tokens.
/// </para>
/// <para>
/// A plain widget (<see cref="PlainWidget"/>) is written from its bytes instead of tokenized, with the plain ones that
/// follow it, and the tokenizer goes on after them from the state it would have reached. That state counts
/// lines and columns from where it was made, so the shift to the body's count is kept beside it for the one place that
/// reads them, a syntax error's location. A plain widget that the end of a segment cuts (as the body's reads cut one
/// every few KB) is copied too, instead of being tokenized: in canonical layout, it and the widgets after it are copied
/// into the output across the segments' ends and checked there, since their bytes are the output already; in any other,
/// it is joined across the cut, up to 1 KiB of it, and the plain widgets after it in its segment are copied straight on.
/// </para>
/// </remarks>
internal sealed class TranscodeSession(IBufferWriter<byte> output, ArrayPool<byte> pool) : IDisposable
{
    // Names that arrived escaped or in pieces are unescaped on the stack up to this length, into rented memory beyond.
    private const int MaxStackName = 128;

    // The same for string values: a generated value is 8 to 17 characters, so one that a read boundary splits fits.
    private const int MaxStackText = 256;

    // The most bytes of a plain widget, with the separator before it, that are joined on the stack when a segment's end
    // cuts the widget: a generated widget takes about 360. A longer one is read with the tokenizer, as before.
    private const int MaxCutWidget = 1024;

    // The least output span widgets in canonical layout are copied into to be checked (CopyStaged): a block of Kestrel's.
    private const int MinStage = 4096;

    private static readonly UtcInstantConverter Instants = new();

    private static readonly string[] EnvelopeMembers = ["widgets"];

    // A body that ends with a widget's closing brace, on line 0 at column WidgetEnd.Length.
    private static ReadOnlySpan<byte> WidgetEnd => "{\"widgets\":[{\"id\":\"\"}"u8;

    // A tokenizer's state just after a widget's closing brace, for the tokenizer to go on from after a widget it did not
    // read (PlainWidget). States at any two such points differ only in the line and column they count from, and this
    // one counts from line 0, column WidgetEnd.Length.
    private static readonly JsonReaderState WidgetEndState = StateAfter(WidgetEnd);

    private readonly ParkedMembers _parked = new(pool);
    private JsonReaderState _state = new(EnvelopeParser.ReaderOptions);
    private TranscodePhase _phase = TranscodePhase.Root;

    // The buffer being read, where it starts in the body, and the line feeds before that start.
    private ReadOnlySequence<byte> _buffer;
    private long _offset;
    private long _lines;
    private long _lineStart;

    // Where in the buffer the tokenizer started (after the last widget read without it), and whether widgets may be
    // read without it here: only in one segment, where a widget's bytes are one span. The line feeds are counted as far
    // as the last such widget, so that counting them stays linear however many widgets a buffer holds.
    private long _readerStart;
    private bool _isFinalBlock;
    private bool _plainAllowed;
    private long _countedTo;
    private long _countedLines;
    private long _countedLineStart;

    // Whether the last piece stopped after a run of copied widgets because the piece's end cut the next one, which Read
    // then tries to copy from the bytes on both sides of the cut.
    private bool _widgetCut;

    // Where in the body the widget after the last one copied starts, if it was found not to be plain, so that it is not
    // tried twice.
    // Stryker disable once Unary : no widget starts at 1 either, the body's first byte being its brace.
    private long _plainRefusedAt = -1;

    // What turns the tokenizer's line and column into the body's once it has gone on from WidgetEndState: the body's
    // line at that point, and the body's column there less WidgetEndColumn. Zero while it never has.
    private long _lineShift;
    private long _columnShift;

    private long _written;
    private bool _rootIsNull;
    private bool _widgetsRead;
    private bool _widgetsAgain;
    private int _widgetCount;
    private int _plainWidgets;
    private int _firstNullWidget = -1;

    // The widget being read: its index in the list, the member whose value comes next, the members seen, and the
    // first member not yet written (those before it are written; those after it that were seen are parked).
    private int _index;
    private int _member;
    private int _seen;
    private int _next;

    /// <summary>
    /// How many bytes past a buffer in which <see cref="Read"/> met a syntax error <see cref="ThrowSyntaxError"/> wants
    /// to see, where the body has them: enough for any message's quote of what follows to be as long as the object path
    /// shows (a message of 200 characters), since a character takes at most three bytes per UTF-16 unit.
    /// </summary>
    public const int SyntaxContextBytes = 1024;

    /// <summary>Whether <see cref="Read"/> stopped at a syntax error, to be reported by <see cref="ThrowSyntaxError"/>.</summary>
    public bool SyntaxErrorPending { get; private set; }

    /// <summary>Bytes of the body read so far, which once the body has ended is its length.</summary>
    public long BodyBytes => _offset;

    /// <summary>What has been transcoded so far; complete once <see cref="Read"/> has been given the final buffer.</summary>
    public TranscodeSummary Summary => new(_written, _widgetCount, _offset, _plainWidgets);

    /// <summary>
    /// Reads every whole token in <paramref name="buffer"/> and returns where the first incomplete one starts (the
    /// end, when <paramref name="isFinalBlock"/>, after checking that the envelope is complete). After a syntax error
    /// (see <see cref="SyntaxErrorPending"/>) it returns where the tokens not yet accepted start.
    /// </summary>
    /// <remarks>
    /// A pipe's buffer is the unread end of one segment followed by the next, and <see cref="Utf8JsonReader"/> reads a
    /// sequence of several segments token by token through a slower path than one span. So each segment's whole tokens
    /// are read from its span, and only the tokens that cross into the next segment from the sequence.
    /// </remarks>
    /// <exception cref="EnvelopeFormatException">The bytes so far cannot be the start of an envelope.</exception>
    public SequencePosition Read(ReadOnlySequence<byte> buffer, bool isFinalBlock)
    {
        var cursor = new BufferCursor(output);
        var rest = buffer;
        // Set before the loop, which always sets it, so that Stryker's mutants of the loop still compile.
        long consumed = 0;
        while (true)
        {
            // How a buffer of several segments is split between span and sequence reads changes the speed, not the
            // bytes: the differential tests deliver every body in many different pieces. Hence the marks below.
            // A plain widget that the end of the last piece cut is copied across the cut, once bytes past it have come.
            if (_widgetCut && !rest.IsSingleSegment)
            {
                // In canonical layout, it and the widgets after it are checked in the output, whatever the segments.
                var copied = CopyStaged(rest, isFinalBlock, ref cursor);
                if (copied == 0)
                {
                    // In any other, it is joined on the stack, and the plain widgets after it in the rest of its segment
                    // are written straight from the segment: no tokenizer is set up for a segment that plain widgets fill
                    // to its end.
                    var joined = CopyCutWidget(rest, ref cursor);
                    rest = rest.Slice(joined);

                    // Stryker disable once Equality,Logical,Boolean,Conditional : on the buffer's last segment, or after no
                    // widget joined, the tokenizer reads on, and copies the plain widgets it meets all the same: only slower.
                    copied = joined > 0 && !rest.IsSingleSegment ? CopyAfterCutWidget(rest.FirstSpan, ref cursor) : 0;
                }

                if (copied > 0)
                {
                    rest = rest.Slice(copied);
                    if (_widgetCut)
                    {
                        if (CanJoin(rest, isFinalBlock))
                        {
                            continue;
                        }

                        consumed = 0;
                        break;
                    }
                }
            }

            if (rest.IsSingleSegment)
            {
                consumed = ReadPiece(rest, isFinalBlock, long.MaxValue, ref cursor);
                break;
            }

            // The segment as a sequence of its own memory: a slice that ends where its segment ends may be marked as
            // ending at the start of the next, and so not be one segment, which would keep plain widgets from the fast path.
            var segment = rest.First.Length;
            var inSegment = ReadPiece(new ReadOnlySequence<byte>(rest.First), isFinalBlock: false, long.MaxValue, ref cursor);
            if (_widgetCut)
            {
                // The widget the segment's end cut is tried whole first, then, if it is not plain, read as before.
                rest = rest.Slice(inSegment);
                if (CanJoin(rest, isFinalBlock))
                {
                    continue;
                }

                consumed = 0;
                break;
            }

            // Stryker disable once Block : the crossing read below meets the same error, at the same place.
            if (SyntaxErrorPending)
            {
                consumed = inSegment;

                // Stryker disable once Statement : the crossing read below meets the same error, at the same place.
                break;
            }

            // At least one token, and as many as it takes to end past the segment (an empty one included).
            // Stryker disable once Linq,Arithmetic : fewer or more tokens read from the sequence.
            var untilPast = Math.Max(1, segment - inSegment);
            var crossing = ReadPiece(rest.Slice(inSegment), isFinalBlock, untilPast, ref cursor);
            consumed = inSegment + crossing;
            if (SyntaxErrorPending || crossing < untilPast)
            {
                // A syntax error, the end of the body, or a token that the rest of the buffer does not complete.
                break;
            }

            rest = rest.Slice(consumed);
        }

        cursor.Commit();
        _written += cursor.Total;
        if (isFinalBlock && !SyntaxErrorPending)
        {
            End();
        }

        return rest.GetPosition(consumed);
    }

    // Whether the widget that the end of rest's first segment cuts can be joined now: bytes past the segment have come,
    // or no more will. A buffer that has nothing past the segment yet (its end marked at the start of the next) leaves
    // it to the next read.
    private static bool CanJoin(ReadOnlySequence<byte> rest, bool isFinalBlock) =>
        rest.Length > rest.First.Length || isFinalBlock;

    /// <summary>Gives pooled memory back.</summary>
    public void Dispose() => _parked.Dispose();

    // Reads the whole tokens of piece, or as many as end within its first untilPast bytes and the one after, and
    // returns how many bytes they take, the offset and line count moved past them; none after a syntax error.
    private long ReadPiece(ReadOnlySequence<byte> piece, bool isFinalBlock, long untilPast, ref BufferCursor cursor)
    {
        _buffer = piece;
        _readerStart = 0;
        (_countedTo, _countedLines, _countedLineStart) = (0, _lines, _lineStart);
        _isFinalBlock = isFinalBlock;
        _widgetCut = false;

        // Stryker disable once Logical : with "or", a crossing read that is one segment may copy plain widgets too, safely.
        _plainAllowed = piece.IsSingleSegment && untilPast == long.MaxValue;
        var (lineShift, columnShift) = (_lineShift, _columnShift);
        var reader = new Utf8JsonReader(piece, isFinalBlock, _state);

        while (!_widgetCut &&
            // Stryker disable once Equality,Arithmetic : a crossing read that goes one token further, or to its end.
            _readerStart + reader.BytesConsumed < untilPast &&
            ReadToken(ref reader))
        {
            switch (_phase)
            {
                case TranscodePhase.Root:
                    Root(ref reader);
                    break;
                case TranscodePhase.EnvelopeMember:
                    EnvelopeMember(ref reader);
                    break;
                case TranscodePhase.WidgetsValue:
                    WidgetsValue(ref reader, ref cursor);
                    break;
                case TranscodePhase.WidgetList:
                    WidgetList(ref reader, ref cursor);
                    break;
                case TranscodePhase.WidgetMember:
                    WidgetMember(ref reader, ref cursor);
                    break;
                case TranscodePhase.WidgetValue:
                    WidgetValue(ref reader, ref cursor);
                    break;
                default:
                    // The reader itself refuses any token after the root.
                    // Stryker disable once String : unreachable.
                    throw new UnreachableException($"A token in phase {_phase}.");
            }
        }

        if (SyntaxErrorPending)
        {
            // The error is found again from the state this piece started with, which counts lines and columns as then.
            (_lineShift, _columnShift) = (lineShift, columnShift);
            return 0;
        }

        var consumed = _readerStart + reader.BytesConsumed;
        _state = reader.CurrentState;
        // The line feeds before the last widget copied are counted already.
        CountLines(piece.Slice(_countedTo, consumed - _countedTo), ref _countedLines, ref _countedLineStart, _offset + _countedTo);
        (_lines, _lineStart) = (_countedLines, _countedLineStart);
        _offset += consumed;
        return consumed;
    }

    /// <summary>
    /// Reports the syntax error <see cref="Read"/> met (see <see cref="SyntaxErrorPending"/>) as the object path
    /// reports it. <paramref name="buffer"/> starts where <see cref="Read"/> returned, and holds the rest of the buffer it
    /// was given followed by as much more of the body as <see cref="SyntaxContextBytes"/> asks for or the body has.
    /// </summary>
    /// <exception cref="EnvelopeFormatException">Always.</exception>
    public void ThrowSyntaxError(ReadOnlySequence<byte> buffer, bool isFinalBlock)
    {
        // The object path's reader sees the whole body as one span, and some of its messages quote the rest of that
        // span (an invalid literal quotes every byte after it): read again from the same state over one span.
        var length = (int)buffer.Length;
        var copy = pool.Rent(length);
        try
        {
            buffer.CopyTo(copy);
            var reader = new Utf8JsonReader(copy.AsSpan(0, length), isFinalBlock, _state);
            while (reader.Read())
            {
            }
        }
        catch (JsonException e)
        {
            throw TranscodeErrors.Syntax(e, Path(), _lineShift, _columnShift);
        }
        finally
        {
            pool.Return(copy);
        }

        // Stryker disable once Statement,String : unreachable.
        throw new UnreachableException("A reader refused bytes once and accepted them with more.");
    }

    private bool ReadToken(ref Utf8JsonReader reader)
    {
        try
        {
            return reader.Read();
        }
        catch (JsonException)
        {
            // Reported by ThrowSyntaxError, once the driver has the context the message needs.
            SyntaxErrorPending = true;
            return false;
        }
    }

    private void End()
    {
        // A final reader returns no more tokens only after a whole root value: anything short of one it refuses.
        // Stryker disable once Statement,String : an assertion, which holds.
        Debug.Assert(_phase == TranscodePhase.AfterRoot, "The final block ended inside the envelope.");
        if (_rootIsNull)
        {
            throw EnvelopeErrors.NullBody();
        }

        if (_firstNullWidget >= 0)
        {
            throw EnvelopeErrors.NullWidget(_firstNullWidget);
        }
    }

    private void Root(ref Utf8JsonReader reader)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.StartObject:
                _phase = TranscodePhase.EnvelopeMember;
                break;
            case JsonTokenType.Null:
                // The serializer returns null for it; EnvelopeParser refuses that after the trailing bytes are checked.
                _rootIsNull = true;
                _phase = TranscodePhase.AfterRoot;
                break;
            default:
                throw TranscodeErrors.CannotConvert(typeof(WidgetEnvelope), At(ref reader));
        }
    }

    private void EnvelopeMember(ref Utf8JsonReader reader)
    {
        if (reader.TokenType == JsonTokenType.EndObject)
        {
            if (!_widgetsRead)
            {
                throw TranscodeErrors.Missing(typeof(WidgetEnvelope), 0, EnvelopeMembers, At(ref reader));
            }

            _phase = TranscodePhase.AfterRoot;
            return;
        }

        if (FindMember(ref reader, inWidget: false) < 0)
        {
            var name = PropertyNames.Decode(ref reader);
            throw TranscodeErrors.Unmapped(name, typeof(WidgetEnvelope), At(ref reader, name));
        }

        // A second list is read as the first was, and refused as a duplicate only at its end.
        _widgetsAgain = _widgetsRead;
        _phase = TranscodePhase.WidgetsValue;
    }

    private void WidgetsValue(ref Utf8JsonReader reader, ref BufferCursor cursor)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.StartArray:
                cursor.Write(CanonicalValues.EnvelopeStart);
                _index = 0;
                _phase = TranscodePhase.WidgetList;
                break;
            case JsonTokenType.Null:
                throw TranscodeErrors.NullNotAllowed("widgets", typeof(WidgetEnvelope), At(ref reader));
            default:
                throw TranscodeErrors.CannotConvert(typeof(IReadOnlyList<Widget>), At(ref reader));
        }
    }

    private void WidgetList(ref Utf8JsonReader reader, ref BufferCursor cursor)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.StartObject:
                if (_index > 0)
                {
                    cursor.Write((byte)',');
                }

                if (_plainAllowed && CopyPlainWidgets(ref reader, ref cursor))
                {
                    break;
                }

                _seen = 0;
                _next = 0;
                _parked.Clear();
                _phase = TranscodePhase.WidgetMember;
                break;
            case JsonTokenType.Null:
                // Nothing to write: a null widget refuses the body once the rest has been checked.
                if (_firstNullWidget < 0)
                {
                    _firstNullWidget = _index;
                }

                _index++;
                break;
            case JsonTokenType.EndArray:
                if (_widgetsAgain)
                {
                    // The second list has been read; the serializer refuses it at the property, not inside the list.
                    _phase = TranscodePhase.WidgetsValue;
                    throw TranscodeErrors.Duplicate("widgets", typeof(WidgetEnvelope), At(ref reader));
                }

                cursor.Write(CanonicalValues.EnvelopeEnd);
                _widgetCount = _index;
                _widgetsRead = true;
                _phase = TranscodePhase.EnvelopeMember;
                break;
            default:
                throw TranscodeErrors.CannotConvert(typeof(Widget), At(ref reader));
        }
    }

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

    private void WidgetMember(ref Utf8JsonReader reader, ref BufferCursor cursor)
    {
        if (reader.TokenType == JsonTokenType.EndObject)
        {
            if (_seen != WidgetMembers.All)
            {
                throw TranscodeErrors.Missing(typeof(Widget), _seen, WidgetMembers.Names, At(ref reader));
            }

            cursor.Write((byte)'}');
            _index++;
            _phase = TranscodePhase.WidgetList;
            return;
        }

        _member = FindMember(ref reader, inWidget: true);
        if (_member < 0)
        {
            var name = PropertyNames.Decode(ref reader);
            throw TranscodeErrors.Unmapped(name, typeof(Widget), At(ref reader, name));
        }

        _phase = TranscodePhase.WidgetValue;
    }

    private void WidgetValue(ref Utf8JsonReader reader, ref BufferCursor cursor)
    {
        var member = _member;
        if (member == _next)
        {
            WriteMember(ref reader, ref cursor, member);
            _next++;

            while (
                // Stryker disable once Equality : no member is number 12, so Holds(12) is false.
                _next < WidgetMembers.Count &&
                _parked.Holds(_next))
            {
                cursor.WriteAll(_parked[_next]);
                _next++;
            }
        }
        else
        {
            // Out of order, or a member seen already (its value is checked before the duplicate is refused, as the
            // serializer does): held until its turn.
            _parked.Begin();
            var parked = new BufferCursor(_parked);
            WriteMember(ref reader, ref parked, member);
            parked.Commit();
            _parked.End(member);
        }

        if ((_seen & (1 << member)) != 0)
        {
            throw TranscodeErrors.Duplicate(WidgetMembers.Name(member), typeof(Widget), At(ref reader));
        }

        // Stryker disable once Assignment : the member's bit is clear (just checked), so "xor" sets it as "or" does.
        _seen |= 1 << member;
        _phase = TranscodePhase.WidgetMember;
    }

    private void WriteMember(ref Utf8JsonReader reader, ref BufferCursor cursor, int member)
    {
        switch (member)
        {
            case WidgetMembers.Id:
                cursor.Write(WidgetMembers.Prefix(member));
                CanonicalValues.WriteGuid(ref cursor, ReadGuid(ref reader));
                break;
            case WidgetMembers.CreatedUtc:
                cursor.Write(WidgetMembers.Prefix(member));
                CanonicalValues.WriteDate(ref cursor, ReadInstant(ref reader));
                break;
            default:
                if (reader.TokenType == JsonTokenType.Null)
                {
                    throw TranscodeErrors.NullNotAllowed(WidgetMembers.Name(member), typeof(Widget), At(ref reader));
                }

                if (reader.TokenType != JsonTokenType.String)
                {
                    throw TranscodeErrors.CannotConvert(typeof(string), At(ref reader));
                }

                cursor.Write(WidgetMembers.Prefix(member));
                WriteText(ref reader, ref cursor);
                cursor.Write((byte)'"');
                break;
        }
    }

    // As the serializer's Guid converter: any token but a string, and any string TryGetGuid refuses, is not a Guid.
    private Guid ReadGuid(ref Utf8JsonReader reader)
    {
        var value = default(Guid);
        bool parsed;
        try
        {
            parsed = reader.TokenType == JsonTokenType.String && reader.TryGetGuid(out value);
        }
        catch (InvalidOperationException)
        {
            // An escaped lone surrogate, found while unescaping.
            parsed = false;
        }

        return parsed ? value : throw TranscodeErrors.CannotConvert(typeof(Guid), At(ref reader));
    }

    // The object path's own converter, so that the instants accepted and their conversion to UTC are the same.
    private DateTime ReadInstant(ref Utf8JsonReader reader)
    {
        try
        {
            return Instants.Read(ref reader, typeof(DateTime), EnvelopeParser.Options);
        }
        catch (JsonException e)
        {
            throw TranscodeErrors.Refused(e, At(ref reader));
        }
        catch (Exception e) when (e is InvalidOperationException or FormatException)
        {
            // Thrown by the reader inside the converter (an escaped lone surrogate), which the serializer reports as
            // a value it could not convert.
            throw TranscodeErrors.CannotConvert(typeof(DateTime), At(ref reader));
        }
    }

    // A string value's text, escaped canonically. Text that arrived unescaped and in one piece is checked and copied
    // from the buffer; any other is unescaped first, on the stack when short and into rented memory when not.
    private void WriteText(ref Utf8JsonReader reader, ref BufferCursor cursor)
    {
        if (!reader.ValueIsEscaped && !reader.HasValueSequence)
        {
            var text = reader.ValueSpan;
            if (Ascii.IsValid(text))
            {
                cursor.WriteAll(text);
                return;
            }

            if (!Utf8.IsValid(text))
            {
                throw TranscodeErrors.CannotConvert(typeof(string), At(ref reader));
            }

            CanonicalValues.WriteUtf8Text(ref cursor, text);
            return;
        }

        var valueLength = (int)ValueLength(ref reader);
        var rented = valueLength > MaxStackText ? pool.Rent(valueLength) : null;
        try
        {
            var buffer = rented ?? stackalloc byte[MaxStackText];
            int length;
            try
            {
                // Unescapes and checks as GetString does: an escaped lone surrogate or invalid UTF-8 is refused.
                length = reader.CopyString(buffer);
            }
            catch (InvalidOperationException)
            {
                throw TranscodeErrors.CannotConvert(typeof(string), At(ref reader));
            }

            CanonicalValues.WriteUtf8Text(ref cursor, buffer[..length]);
        }
        finally
        {
            if (rented is not null)
            {
                pool.Return(rented);
            }
        }
    }

    // The index of the current property among the envelope's members (just "widgets") or a widget's, or -1. The
    // serializer unescapes every name before looking it up, and reports a name with an escaped lone surrogate as a
    // value of the object's type it could not convert, at the object's path.
    private int FindMember(ref Utf8JsonReader reader, bool inWidget)
    {
        // Stryker disable once Block : the path below finds the same member, only slower.
        if (!reader.ValueIsEscaped && !reader.HasValueSequence)
        {
            return Find(reader.ValueSpan, inWidget);
        }

        var length = (int)ValueLength(ref reader);
        var rented = length > MaxStackName ? pool.Rent(length) : null;
        try
        {
            var name = rented ?? stackalloc byte[MaxStackName];
            var written = PropertyNames.Unescape(ref reader, name);
            if (written < 0)
            {
                throw TranscodeErrors.CannotConvert(inWidget ? typeof(Widget) : typeof(WidgetEnvelope), At(ref reader));
            }

            return Find(name[..written], inWidget);
        }
        finally
        {
            if (rented is not null)
            {
                pool.Return(rented);
            }
        }
    }

    private static int Find(ReadOnlySpan<byte> name, bool inWidget) =>
        inWidget ? WidgetMembers.Find(name) : name.SequenceEqual("widgets"u8) ? 0 : -1;

    private static long ValueLength(ref Utf8JsonReader reader) =>
        reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;

    private string Path() => _phase switch
    {
        TranscodePhase.WidgetsValue => "$.widgets",
        TranscodePhase.WidgetList or TranscodePhase.WidgetMember => string.Create(CultureInfo.InvariantCulture, $"$.widgets[{_index}]"),
        TranscodePhase.WidgetValue => string.Create(CultureInfo.InvariantCulture, $"$.widgets[{_index}].{WidgetMembers.Name(_member)}"),
        _ => "$",
    };

    private TextLocation At(ref Utf8JsonReader reader, string? member = null)
    {
        var path = member is null ? Path() : TranscodeErrors.Member(Path(), member);
        var lines = _lines;
        var lineStart = _lineStart;
        var consumed = _readerStart + reader.BytesConsumed;
        CountLines(_buffer.Slice(0, consumed), ref lines, ref lineStart, _offset);
        return new TextLocation(path, lines, _offset + consumed - lineStart);
    }

    // The state of a tokenizer that has read every token of json, which ends with a token.
    private static JsonReaderState StateAfter(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json, isFinalBlock: false, new JsonReaderState(EnvelopeParser.ReaderOptions));

        // Stryker disable once Equality : at the end, one more Read finds no token and changes nothing.
        while (reader.BytesConsumed < json.Length && reader.Read())
        {
        }

        return reader.CurrentState;
    }

    // Adds the line feeds in bytes, which start at offset in the body, to lines, and moves lineStart past the last.
    private static void CountLines(ReadOnlySequence<byte> bytes, ref long lines, ref long lineStart, long offset)
    {
        foreach (var segment in bytes)
        {
            CountLines(segment.Span, ref lines, ref lineStart, offset);
            offset += segment.Length;
        }
    }

    private static void CountLines(ReadOnlySpan<byte> bytes, ref long lines, ref long lineStart, long offset)
    {
        var last = bytes.LastIndexOf((byte)'\n');
        if (last >= 0)
        {
            lines += bytes.Count((byte)'\n');
            lineStart = offset + last + 1;
        }
    }
}
