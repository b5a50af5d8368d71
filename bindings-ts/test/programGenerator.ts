// Small random ES5 programs for the engine differential test (parity.test.ts): arithmetic,
// strings, arrays, objects, closures and exceptions, from a seed. Every program is one statement
// per line, each line printing what it computed, so a divergence can be cut down line by line
// (minimise) to the few lines that show it.
//
// The programs stay inside the language both engines are held to: errors the engine throws are
// printed by name only (their message text is each engine's, docs/compiler.md "What still
// differs"), and nothing reads Error.stack or the Date of the host, or cuts a surrogate pair in
// half before JSON.stringify (the other documented differences).

/** A seeded generator (mulberry32): the same seed gives the same program everywhere. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

const NUMBERS = ['0', '-0', '1', '-1', '2', '3', '7', '10', '0.1', '0.5', '1.5', '2.5', '-3.25', '1e21', '1e-7', '255', '4294967296', '9007199254740993', '1/3', 'NaN', 'Infinity', '-Infinity', '0.1+0.2', '123.456', '-99.995'];
const STRINGS = ["''", "'a'", "'abc'", "'Hello, World'", "'  pad  '", "'x,y,,z'", "'\\u00e9t\\u00e9'", "'10'", "'0x1f'", "' 12 '", "'1e3'", "'true'", "'\\u03a3\\u0391'", "'null'"];

function numberExpr(r: Rng, depth: number): string {
  if (depth <= 0 || r.int(3) === 0) return r.pick(NUMBERS);
  const a = numberExpr(r, depth - 1);
  const b = numberExpr(r, depth - 1);
  switch (r.int(12)) {
    case 0: return `(${a} + ${b})`;
    case 1: return `(${a} - ${b})`;
    case 2: return `(${a} * ${b})`;
    case 3: return `(${a} / ${b})`;
    case 4: return `(${a} % ${b})`;
    case 5: return `(${a} | ${b})`;
    case 6: return `(${a} >>> ${r.int(40)})`;
    case 7: return `(${a} << ${r.int(40)})`;
    case 8: return `Math.${r.pick(['floor', 'ceil', 'round', 'abs', 'sqrt', 'sin', 'cos', 'atan', 'exp', 'log'])}(${a})`;
    case 9: return `Math.${r.pick(['max', 'min', 'pow', 'atan2'])}(${a}, ${b})`;
    case 10: return `(${a} ^ ${b})`;
    default: return `(-(${a}))`;
  }
}

function stringExpr(r: Rng, depth: number): string {
  if (depth <= 0 || r.int(3) === 0) return r.pick(STRINGS);
  const s = stringExpr(r, depth - 1);
  switch (r.int(14)) {
    case 0: return `(${s} + ${stringExpr(r, depth - 1)})`;
    case 1: return `${s}.slice(${r.int(7) - 3}, ${r.int(9) - 2})`;
    case 2: return `${s}.substring(${r.int(6)}, ${r.int(6)})`;
    case 3: return `${s}.toUpperCase()`;
    case 4: return `${s}.toLowerCase()`;
    case 5: return `${s}.trim()`;
    case 6: return `${s}.split(${r.pick(["''", "','", "'a'", '/,/'])}).join(${r.pick(["'-'", "''", "'|'"])})`;
    case 7: return `${s}.replace(${r.pick(["'a'", '/[a-z]/g', '/(\\w)(\\w)?/', "','"])}, ${r.pick(["'$&$&'", "'[$1]'", "'_'", "'$$'"])})`;
    case 8: return `String(${numberExpr(r, depth - 1)})`;
    case 9: return `(${numberExpr(r, depth - 1)}).toFixed(${r.int(8)})`;
    case 10: return `(${numberExpr(r, depth - 1)}).toString(${r.pick([2, 8, 16, 36, 10])})`;
    case 11: return `JSON.stringify(${valueExpr(r, depth - 1)})`;
    case 12: return `${s}.charAt(${r.int(5)}) + ${s}.charCodeAt(${r.int(5)})`;
    default: return `(${numberExpr(r, depth - 1)}).toPrecision(${1 + r.int(12)})`;
  }
}

function arrayExpr(r: Rng, depth: number): string {
  const n = r.int(6);
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push(r.int(2) ? numberExpr(r, depth - 1) : stringExpr(r, depth - 1));
  return `[${items.join(', ')}]`;
}

function objectExpr(r: Rng, depth: number): string {
  const keys = ['a', 'b', 'z', '0', '10', '2', '-1', '01', 'length', 'x y'];
  const n = r.int(5);
  const props: string[] = [];
  for (let i = 0; i < n; i++) props.push(`'${r.pick(keys)}': ${valueExpr(r, depth - 1)}`);
  return `{${props.join(', ')}}`;
}

function valueExpr(r: Rng, depth: number): string {
  if (depth <= 0) return r.int(2) ? r.pick(NUMBERS) : r.pick(STRINGS);
  switch (r.int(6)) {
    case 0: return arrayExpr(r, depth);
    case 1: return objectExpr(r, depth);
    case 2: return stringExpr(r, depth);
    case 3: return r.pick(['null', 'true', 'false', 'undefined']);
    default: return numberExpr(r, depth);
  }
}

/** One line: a statement that prints what it computed. Variables v0.. are declared in order. */
function statement(r: Rng, i: number, vars: string[]): string {
  const v = `v${i}`;
  const prev = vars.length ? r.pick(vars) : '0';
  const show = (e: string) => `print('${v} ' + ${e});`;
  switch (r.int(16)) {
    case 0: return `var ${v} = ${numberExpr(r, 3)}; ${show(`String(${v})`)}`;
    case 1: return `var ${v} = ${stringExpr(r, 3)}; ${show(`JSON.stringify(${v})`)}`;
    case 2: return `var ${v} = ${arrayExpr(r, 2)}; ${v}.sort(${r.pick(['', 'function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }', 'function (a, b) { return String(a).length - String(b).length; }', 'function (a, b) { return a > b; }'])}); ${show(`JSON.stringify(${v})`)}`;
    case 3: return `var ${v} = ${objectExpr(r, 2)}; ${show(`Object.keys(${v}).join(',') + ' ' + JSON.stringify(${v})`)}`;
    case 4: return `var ${v} = ${objectExpr(r, 2)}; delete ${v}['${r.pick(['a', '0', 'z', '10'])}']; ${v}['${r.pick(['b', '1', 'a', '3'])}'] = ${valueExpr(r, 1)}; var k${i} = []; for (var p${i} in ${v}) k${i}.push(p${i}); ${show(`k${i}.join(',')`)}`;
    case 5: return `var ${v} = (function (n) { var c = n; return function (d) { c += d; return c; }; })(${numberExpr(r, 1)}); ${v}(${numberExpr(r, 1)}); ${show(`String(${v}(${r.pick(NUMBERS)}))`)}`;
    case 6: return `var ${v}; try { if (${numberExpr(r, 2)} > ${numberExpr(r, 1)}) throw new Error('big ' + ${stringExpr(r, 1)}); ${v} = 'no throw'; } catch (e) { ${v} = e.name + ': ' + e.message; } finally { ${v} += '!'; } ${show(v)}`;
    case 7: return `var ${v}; try { ${v} = ${r.pick(['null.x', 'undefined()', 'new Array(-1)', "JSON.parse('{')", '[].reduce(function (a, b) { return a + b; })', 'ok.y', "'s'.z.w"])}; } catch (e) { ${v} = e.name + ' ' + (e instanceof Error); } ${show(v)}`;
    case 8: return `var ${v} = ${arrayExpr(r, 2)}.map(function (x, i) { return typeof x === 'number' ? x * i : x + i; }).filter(function (x) { return x === x; }); ${show(`${v}.join('|')`)}`;
    case 9: return `var ${v} = ${arrayExpr(r, 2)}.reduce(function (a, b) { return a + b; }, ${r.pick(["''", '0'])}); ${show(`String(${v})`)}`;
    case 10: return `var ${v} = [${prev}, ${numberExpr(r, 2)}].concat(${arrayExpr(r, 1)}).reverse(); ${show(`${v}.join() + ' ' + ${v}.indexOf(${r.pick(NUMBERS)}) + ' ' + ${v}.slice(${r.int(4)}).length`)}`;
    case 11: return `var ${v} = JSON.parse(JSON.stringify(${valueExpr(r, 3)}) || 'null'); ${show(`JSON.stringify(${v})`)}`;
    case 12: return `var ${v} = ${numberExpr(r, 2)}; ${show(`[${v}.toFixed(${r.int(21)}), ${v}.toExponential(${r.int(21)}), ${v}.toPrecision(${1 + r.int(21)}), ${v}.toString(${2 + r.int(35)})].join(' ')`)}`;
    case 13: return `var ${v} = { n: 0, get twice() { return this.n * 2; }, set twice(x) { this.n = x / 2; } }; ${v}.twice = ${numberExpr(r, 1)}; ${show(`${v}.n + ' ' + ${v}.twice + ' ' + JSON.stringify(${v})`)}`;
    case 14: return `var ${v} = (function () { return arguments.length + ':' + Array.prototype.slice.call(arguments, 1).join(); })(${[numberExpr(r, 1), stringExpr(r, 1), valueExpr(r, 1)].slice(0, r.int(4)).join(', ')}); ${show(v)}`;
    default: return `var ${v} = ${stringExpr(r, 2)}; ${show(`${v}.length + ' ' + ${v}.indexOf(${r.pick(["'a'", "','", "''"])}) + ' ' + ${v}.split('').reverse().join('').length`)}`;
  }
}

/** A program of `lines` statements from seed; each line is independent of the lines it does not
 * name, so lines can be removed (a line referring to a removed variable throws, which both
 * engines do alike). */
export function generateProgram(seed: number, lines = 12): string[] {
  const r = new Rng(seed);
  const out: string[] = [];
  const vars: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(statement(r, i, vars));
    vars.push(`v${i}`);
  }
  return out;
}

/** The program as an app: each line in its own try, so one line's failure does not hide the rest. */
export function programSource(lines: string[]): string {
  return lines.map((l) => `try { ${l} } catch (e) { print('line threw ' + e.name); }`).join('\n') + '\n';
}

/**
 * Cut a diverging program down: drop lines while it still diverges (greedy, until no single line
 * can go), as ddmin's last stage does. `diverges` runs the candidate on both engines.
 */
export async function minimise(lines: string[], diverges: (lines: string[]) => Promise<boolean>): Promise<string[]> {
  let current = lines;
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = current.length - 1; i >= 0 && current.length > 1; i--) {
      const candidate = current.slice(0, i).concat(current.slice(i + 1));
      if (await diverges(candidate)) {
        current = candidate;
        changed = true;
      }
    }
  }
  return current;
}
