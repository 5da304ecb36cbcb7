using System.Buffers;
using System.Diagnostics;
using System.Text.Json;

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
/// <para>
/// One class, as the parts share one state (the tokenizer's, the widget's, the counts of lines), in four files: this
/// one (the buffers, the read loop and the envelope's phases), <c>TranscodeSession.PlainWidgets.cs</c> (the fast path),
/// <c>TranscodeSession.Members.cs</c> (a widget token by token) and <c>TranscodeSession.Locations.cs</c> (paths, lines
/// and columns for the errors).
/// </para>
/// </remarks>
internal sealed partial class TranscodeSession(IBufferWriter<byte> output, ArrayPool<byte> pool) : IDisposable
{
    private static readonly UtcInstantConverter Instants = new();

    private static readonly string[] EnvelopeMembers = ["widgets"];

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
    // line at that point, and the body's column there less WidgetEnd.Length. Zero while it never has.
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
}
