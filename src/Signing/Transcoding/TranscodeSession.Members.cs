using System.Text;
using System.Text.Json;
using System.Text.Unicode;

namespace Signing.Transcoding;

/// <content>
/// The slow path: a widget read token by token, each member checked as the object path checks it and written in
/// canonical order (members that come early are parked until their turn), its text escaped canonically.
/// </content>
internal sealed partial class TranscodeSession
{
    // Names that arrived escaped or in pieces are unescaped on the stack up to this length, into rented memory beyond.
    private const int MaxStackName = 128;

    // The same for string values: a generated value is 8 to 17 characters, so one that a read boundary splits fits.
    private const int MaxStackText = 256;

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
}
