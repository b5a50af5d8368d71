// Command-line parsing shared by every subcommand: options are declared once per command, and the
// same declaration drives parsing and the help text.

/** Bad command-line input: reported on one line, exit status 2. */
export class UsageError extends Error {
  /** Whether pointing at the command's help would help (not for a missing file, say). */
  readonly helpHint: boolean;
  constructor(message: string, helpHint = true) {
    super(message);
    this.name = 'UsageError';
    this.helpHint = helpHint;
  }
}

export interface OptionSpec {
  /** Long name without dashes, e.g. "api". */
  name: string;
  /** One-letter alias without the dash, e.g. "o". */
  short?: string;
  /** Placeholder shown in help; set when the option takes a value. */
  value?: string;
  /** The option may be given more than once; every value is kept (ParsedArgs.lists). */
  repeatable?: boolean;
  help: string;
  /** An option taken away: giving it is a usage error with this message (what to use instead),
   * and the help leaves it out. */
  retired?: string;
}

export interface CommandSpec {
  name: string;
  /** One line for the command list. */
  brief: string;
  summary: string;
  /** Positional arguments, in order; required unless optional. The last may be variadic (one or
   * more values; none when it is also optional). */
  positionals: readonly { name: string; help: string; optional?: boolean; variadic?: boolean }[];
  options: readonly OptionSpec[];
  /** Extra paragraphs for the command's help. */
  details?: string;
}

export interface ParsedArgs {
  positionals: string[];
  /** Options by long name: the value, or true for flags. The last occurrence wins. */
  options: Map<string, string | true>;
  /** Every value of each repeatable option, in order. */
  lists: Map<string, string[]>;
  help: boolean;
}

const HELP: OptionSpec = { name: 'help', short: 'h', help: 'show this help' };

export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const options = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  const positionals: string[] = [];
  const all = [...spec.options, HELP];
  let onlyPositionals = false;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPositionals || arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPositionals = true;
      continue;
    }
    let opt: OptionSpec | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
      opt = all.find((o) => o.name === name);
    } else {
      const short = arg.slice(1, 2);
      inline = arg.length > 2 ? arg.slice(2) : undefined;
      opt = all.find((o) => o.short === short);
    }
    if (!opt) throw new UsageError(`unknown option '${arg.replace(/=.*$/, '')}'`);
    if (opt.retired !== undefined) throw new UsageError(`--${opt.name}: ${opt.retired}`);
    const shown = arg.startsWith('--') ? `--${opt.name}` : `-${opt.short}`;
    if (opt.value === undefined) {
      if (inline !== undefined) throw new UsageError(`option '${shown}' takes no value`);
      options.set(opt.name, true);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`option '${shown}' needs a value (${opt.value})`);
      value = argv[++i];
    }
    options.set(opt.name, value);
    if (opt.repeatable) lists.set(opt.name, [...(lists.get(opt.name) ?? []), value]);
  }

  const help = options.has('help');
  options.delete('help');
  if (!help) {
    const required = spec.positionals.filter((p) => !p.optional).length;
    const variadic = spec.positionals.length > 0 && spec.positionals[spec.positionals.length - 1].variadic;
    if (positionals.length < required) {
      const missing = spec.positionals[positionals.length];
      throw new UsageError(`missing ${missing.name}`);
    }
    if (!variadic && positionals.length > spec.positionals.length) {
      throw new UsageError(`unexpected argument '${positionals[spec.positionals.length]}'`);
    }
  }
  return { positionals, options, lists, help };
}

export function listOption(args: ParsedArgs, name: string): string[] {
  return args.lists.get(name) ?? [];
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.options.get(name);
  return typeof v === 'string' ? v : undefined;
}

export function flagOption(args: ParsedArgs, name: string): boolean {
  return args.options.get(name) === true;
}

/** The help text of a command, generated from its spec. */
export function commandHelp(spec: CommandSpec): string {
  const pos = spec.positionals
    .map((p) => {
      const one = `<${p.name}>${p.variadic ? '...' : ''}`;
      return ` ${p.optional ? `[${one}]` : one}`;
    })
    .join('');
  const lines = [`usage: beacon ${spec.name}${pos} [options]`, '', spec.summary, ''];
  if (spec.positionals.length > 0) {
    lines.push('arguments:');
    for (const p of spec.positionals) lines.push(`  ${p.name.padEnd(24)}${p.help}`);
    lines.push('');
  }
  lines.push('options:');
  for (const o of [...spec.options, HELP].filter((o) => o.retired === undefined)) {
    const names =
      (o.short ? `-${o.short}, ` : '    ') + `--${o.name}` + (o.value ? ` ${o.value}` : '') + (o.repeatable ? '...' : '');
    lines.push(`  ${names.length < 23 ? names.padEnd(24) : `${names}  `}${o.help}`);
  }
  if (spec.details) lines.push('', spec.details);
  return lines.join('\n') + '\n';
}
