namespace Signing.Transcoding;

/// <summary>Where in the envelope the next token belongs; each phase has its own path for errors.</summary>
internal enum TranscodePhase
{
    /// <summary>Before the first token: the envelope object, or <c>null</c>.</summary>
    Root,

    /// <summary>Inside the envelope object, before a property name or its end (path <c>$</c>).</summary>
    EnvelopeMember,

    /// <summary>After the name <c>widgets</c>, before its value (path <c>$.widgets</c>).</summary>
    WidgetsValue,

    /// <summary>Inside the widget list, before a widget or the list's end (path <c>$.widgets[i]</c>).</summary>
    WidgetList,

    /// <summary>Inside a widget, before a property name or the widget's end (path <c>$.widgets[i]</c>).</summary>
    WidgetMember,

    /// <summary>After a widget's property name, before its value (path <c>$.widgets[i].name</c>).</summary>
    WidgetValue,

    /// <summary>After the root value: only whitespace may follow.</summary>
    AfterRoot,
}
