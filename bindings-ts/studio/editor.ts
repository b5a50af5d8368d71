// The editor panel: CodeMirror 6 with the local server's TypeScript diagnostics and completions
// for the chosen API version, and the list of problems under it.
import { autocompletion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { javascript } from '@codemirror/lang-javascript';
import { Diagnostic as CmDiagnostic, forceLinting, linter, lintGutter } from '@codemirror/lint';
import { basicSetup, EditorView } from 'codemirror';
import { $, post, setStatus, state } from './page';

async function lintSource(view: EditorView): Promise<CmDiagnostic[]> {
  // JavaScript apps are not type-checked by the build (checkJs off): Build reports their errors.
  if (!/\.m?ts$/.test(state.name)) {
    showProblems([]);
    return [];
  }
  const source = view.state.doc.toString();
  const list = await post<{ from: number; to: number; severity: 'error' | 'warning'; message: string; line: number }[]>('api/diagnostics', { source, api: state.api });
  if (view.state.doc.toString() !== source) return [];
  showProblems(list.map((d) => ({ severity: d.severity, text: `${state.name}:${d.line}: ${d.severity}: ${d.message}`, line: d.line })));
  const len = view.state.doc.length;
  return list.map((d) => ({ from: Math.min(d.from, len), to: Math.min(Math.max(d.to, d.from), len), severity: d.severity, message: d.message }));
}

async function completeSource(ctx: CompletionContext): Promise<CompletionResult | null> {
  const word = ctx.matchBefore(/[\w$]*/);
  if (!word || (word.from === word.to && !ctx.explicit && !/\.$/.test(ctx.state.sliceDoc(word.from - 1, word.from)))) return null;
  const items = await post<{ label: string; type: string }[]>('api/completions', { source: ctx.state.doc.toString(), pos: ctx.pos, api: state.api });
  return { from: word.from, options: items, validFor: /^[\w$]*$/ };
}

export const editor = new EditorView({
  parent: $('editor'),
  extensions: [
    basicSetup,
    javascript({ typescript: true }),
    lintGutter(),
    linter(lintSource, { delay: 400 }),
    autocompletion({ override: [completeSource] }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged && state.pkg?.source !== undefined && state.pkg.source !== u.state.doc.toString()) setStatus('edited: Build or Run to use the change');
    }),
  ],
});

export function setSource(text: string, name = state.name): void {
  state.name = name;
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  forceLinting(editor);
}

export function showProblems(list: { severity: string; text: string; line?: number }[]): void {
  const box = $('problems');
  box.replaceChildren(
    ...list.map((p) => {
      const div = document.createElement('div');
      div.className = `problem ${p.severity}`;
      div.textContent = p.text;
      if (p.line !== undefined) {
        div.dataset.line = String(p.line);
        div.onclick = () => {
          const line = editor.state.doc.line(Math.min(p.line!, editor.state.doc.lines));
          editor.dispatch({ selection: { anchor: line.from }, scrollIntoView: true });
          editor.focus();
        };
      }
      return div;
    }),
  );
}

export function setApi(v: string): void {
  state.api = v;
  $<HTMLSelectElement>('api').value = v;
  forceLinting(editor);
}
