using System.Collections;

namespace Signing.Tests.Strategies;

/// <summary>
/// Widgets that throw when widget <c>failAt</c> is reached, by index or by enumeration: a sign that fails part-way,
/// after some of the document has already gone into buffers and the hash.
/// </summary>
internal sealed class FailingWidgetList(IReadOnlyList<Widget> widgets, int failAt) : IReadOnlyList<Widget>
{
    public int Count => widgets.Count;

    public Widget this[int index] => index == failAt ? throw new InvalidOperationException($"Widget {index} failed on purpose.") : widgets[index];

    public IEnumerator<Widget> GetEnumerator()
    {
        for (var i = 0; i < Count; i++)
        {
            yield return this[i];
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
