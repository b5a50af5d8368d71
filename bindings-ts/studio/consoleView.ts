// The console panel: the app's output and the runtime's messages, error locations shown in the
// app's source, added once per frame.
import { lookupPosition } from '../src/compiler/sourceMap';
import { OutputLine } from '../src/studio/world';
import { $, state } from './page';

let pendingConsole: { text: string; cls: string }[] = [];

export function consoleLine(text: string, cls: string): void {
  pendingConsole.push({ text, cls });
}

export function flushConsole(): void {
  if (pendingConsole.length === 0) return;
  const box = $('console-lines');
  const frag = document.createDocumentFragment();
  // A fast run prints more between two frames than the console keeps: only those kept are made.
  for (const l of pendingConsole.length > 2000 ? pendingConsole.slice(-2000) : pendingConsole) {
    const span = document.createElement('span');
    span.className = l.cls;
    span.textContent = l.text;
    frag.appendChild(span);
  }
  pendingConsole = [];
  box.appendChild(frag);
  while (box.childNodes.length > 2000) box.firstChild?.remove();
}

/** Error locations in the compiled script shown in the TypeScript source (as rewriteLocations). */
export function mapLocations(text: string, device = ''): string {
  const pkg = state.devicePkgs.get(device) ?? state.pkg;
  if (!pkg?.map) return text;
  const map = pkg.map;
  const name = map.file ?? 'app.min.js';
  const re = new RegExp(`(?<![\\w./-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+)(?::(\\d+))?`, 'g');
  return text.replace(re, (whole, line: string, column: string | undefined) => {
    const pos = lookupPosition(map, Number(line), column === undefined ? undefined : Number(column));
    return pos ? `${pos.source}:${pos.line}:${pos.column}` : whole;
  });
}

export function onOutput(line: OutputLine): void {
  if (line.stream === 'stdout') {
    state.stdout += line.text;
    consoleLine(line.text, 'out');
  } else {
    const text = mapLocations(line.text, line.device);
    state.stderr += text;
    consoleLine(text, `err ${line.level ?? ''}`);
  }
}

/** A new run: what the last one left unshown is dropped. */
export function clearConsole(): void {
  pendingConsole = [];
  $('console-lines').replaceChildren();
}
