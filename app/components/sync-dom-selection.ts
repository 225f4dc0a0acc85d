import { Plugin, TextSelection } from "@tiptap/pm/state";
import type { EditorView } from "@tiptap/pm/view";
import { Extension } from "@tiptap/react";

/**
 * Keys act where the caret is, not where it was.
 *
 * Keys such as End, Home or the arrows move the caret natively; ProseMirror learns of the move
 * only from the `selectionchange` event, which the browser queues as a separate task. On a busy
 * machine the next keydown (Enter, Backspace, a shortcut) can be handled before that task runs,
 * and then acts on the old selection: after Bold on a selected word, End then Enter split the
 * paragraph inside the word, or replaced it (issue 11). Before any key is handled, this reads
 * the browser's selection into the editor state if the two differ.
 */
export const SyncDomSelection = Extension.create({
  name: "syncDomSelection",
  // Runs before every keymap, so they all see the caret the writer sees.
  priority: 10_000,
  addProseMirrorPlugins() {
    return [
      new Plugin({
        props: {
          handleKeyDown(view) {
            syncSelectionFromDom(view);
            return false;
          },
        },
      }),
    ];
  },
});

function syncSelectionFromDom(view: EditorView) {
  const { selection, doc } = view.state;
  // Node selections (an image) and compositions (IME input) are ProseMirror's own to manage.
  if (view.composing || !(selection instanceof TextSelection) || !view.hasFocus()) return;
  const dom = view.dom.ownerDocument.getSelection();
  if (!dom?.anchorNode || !dom.focusNode) return;
  if (!view.dom.contains(dom.anchorNode) || !view.dom.contains(dom.focusNode)) return;
  let anchor: number;
  let head: number;
  try {
    anchor = view.posAtDOM(dom.anchorNode, dom.anchorOffset);
    head = view.posAtDOM(dom.focusNode, dom.focusOffset);
  } catch {
    return; // a DOM point ProseMirror does not map (a widget): leave it to selectionchange
  }
  if (anchor === selection.anchor && head === selection.head) return;
  const next = TextSelection.between(doc.resolve(anchor), doc.resolve(head));
  if (!next.eq(selection)) view.dispatch(view.state.tr.setSelection(next));
}
