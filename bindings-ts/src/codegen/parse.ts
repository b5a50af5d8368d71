// Reads the API declarations (bindings-ts/api/*.d.ts) with the TypeScript compiler API into the
// IR. Declarations must type-check; any construct the codegen does not understand is an error
// with its file:line, never silently skipped.
//
// JSDoc tags read here:
//   @since X, @until X (inclusive), @versions a b   the versions a declaration exists in
//   @default name value        JSON default of an optional parameter (or a record field)
//   @native rt_name            the C function, when not rt_<namespace>_<name> (aliases share one)
//   @throws ESRxxxx text       an error the call throws; `@throws ESRxxxx [since X] text` (or
//                              [until X], [versions a b]) when only some versions throw it
//   @invalid name ESRxxxx      a refused value of that parameter throws this coded error instead
//                              of a TypeError/RangeError (the spec codes some refusals); needs
//                              a matching @throws
//   @rejects                   argument errors reject the returned promise instead of throwing
//   @alias otherName           the same function also under otherName (same native, same
//                              overloads): the spec's `vendor` spellings of the maker's names
//   @deprecated text, @handle nativeType (interfaces), @values 0.0.9=0 (enum members),
//   @value JSON (constants)
import * as fs from 'fs';
import * as path from 'path';
import ts from 'typescript';
import { docText, literalValue, tagsNamed } from './jsdoc';
import { API_VERSIONS, compareVersions, isApiVersion } from './versions';
import type {
  ApiIR, ConstIR, DefaultValue, FieldIR, FunctionIR, HandleIR, NamespaceIR, OverloadIR, ParamIR,
  RecordIR, ThrowsIR, TypeIR,
} from './ir';

export const ALL_VERSIONS_MASK = (1 << API_VERSIONS.length) - 1;

/** The plain TypeScript type micro-app authors see for each vocabulary alias of types.d.ts. */
const PLAIN_TYPES: Record<string, string> = {
  Stringable: 'unknown',
  Str: 'string',
  Interval: 'number | string',
  Num: 'number',
  Int: 'number',
  AtLeast: 'number',
  Bytes: 'ArrayBuffer | string',
  PureObject: 'unknown',
  Timestamp: 'number | Date',
  SnapDown: 'number',
  OneOfEach: 'number[]',
  // readonly, so that the io.Color constants (typed readonly number[]) can be passed
  NumTuple: 'readonly number[]',
};

/** Longest NumTuple the C side holds (GLUE_TUPLE_MAX in src/glue/glue_core.h). */
export const TUPLE_MAX = 4;

export class DeclarationError extends Error {}

export function parseApi(apiDir: string): ApiIR {
  const files = fs
    .readdirSync(apiDir)
    .filter((f) => f.endsWith('.d.ts'))
    .sort()
    .map((f) => path.join(apiDir, f));
  const program = ts.createProgram(files, {
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2015,
    lib: ['lib.es2015.d.ts'],
    types: [],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    throw new DeclarationError(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => process.cwd(),
        getNewLine: () => '\n',
      })
    );
  }
  const reader = new DeclarationReader(program);
  for (const file of files) reader.readFile(program.getSourceFile(file)!);
  return reader.finish();
}

class DeclarationReader {
  private checker: ts.TypeChecker;
  private namespaces = new Map<string, NamespaceIR>();
  private functions = new Map<string, FunctionIR>();
  private handles = new Map<string, HandleIR>();
  private records = new Map<string, RecordIR>();
  private consts: ConstIR[] = [];
  private printer = ts.createPrinter({ removeComments: true });

  constructor(private program: ts.Program) {
    this.checker = program.getTypeChecker();
  }

  readFile(sf: ts.SourceFile): void {
    if (path.basename(sf.fileName) === 'types.d.ts') return; // the vocabulary itself
    for (const stmt of sf.statements) this.readStatement(stmt, '', ALL_VERSIONS_MASK);
  }

  finish(): ApiIR {
    const order = (a: { path: string }, b: { path: string }) =>
      a.path.split('.').length - b.path.split('.').length || a.path.localeCompare(b.path);
    return {
      namespaces: [...this.namespaces.values()].sort(order),
      functions: [...this.functions.values()],
      handles: [...this.handles.values()],
      records: [...this.records.values()],
      consts: this.consts,
    };
  }

  private fail(node: ts.Node, message: string): never {
    throw new DeclarationError(`${this.pos(node)}: ${message}`);
  }

  private pos(node: ts.Node): string {
    const sf = node.getSourceFile();
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart());
    return `${path.relative(process.cwd(), sf.fileName)}:${line + 1}:${character + 1}`;
  }

  private readStatement(stmt: ts.Statement, owner: string, mask: number): void {
    if (ts.isFunctionDeclaration(stmt)) {
      this.readFunction(stmt, owner, mask);
    } else if (ts.isModuleDeclaration(stmt)) {
      this.readNamespace(stmt, owner, mask);
    } else if (ts.isInterfaceDeclaration(stmt)) {
      if (owner !== '') this.fail(stmt, 'interfaces must be declared at the top level');
      this.readInterface(stmt);
    } else if (ts.isEnumDeclaration(stmt)) {
      this.readEnum(stmt, owner, mask);
    } else if (ts.isVariableStatement(stmt)) {
      this.readConstants(stmt, owner, mask);
    } else {
      this.fail(stmt, `unsupported declaration (${ts.SyntaxKind[stmt.kind]})`);
    }
  }

  private readNamespace(decl: ts.ModuleDeclaration, owner: string, mask: number): void {
    const nsPath = owner ? `${owner}.${decl.name.getText()}` : decl.name.getText();
    const nsMask = mask & this.versionMask(decl);
    const existing = this.namespaces.get(nsPath);
    const doc = docText(decl);
    if (existing) {
      existing.mask |= nsMask;
      if (!existing.doc) existing.doc = doc;
    } else {
      this.namespaces.set(nsPath, { path: nsPath, mask: nsMask, doc, isEnum: false });
    }
    const body = decl.body;
    if (!body) return;
    if (ts.isModuleDeclaration(body)) {
      this.readNamespace(body, nsPath, nsMask);
    } else if (ts.isModuleBlock(body)) {
      for (const stmt of body.statements) this.readStatement(stmt, nsPath, nsMask);
    }
  }

  private readEnum(decl: ts.EnumDeclaration, owner: string, mask: number): void {
    const enumPath = owner ? `${owner}.${decl.name.text}` : decl.name.text;
    const enumMask = mask & this.versionMask(decl);
    this.namespaces.set(enumPath, { path: enumPath, mask: enumMask, doc: docText(decl), isEnum: true });
    for (const member of decl.members) {
      const memberMask = enumMask & this.versionMask(member);
      if (!member.initializer) this.fail(member, 'enum members need an explicit value');
      const base = literalValue(member.initializer, (n, m) => this.fail(n, m));
      const overrides = new Map<number, string>();
      for (const tag of tagsNamed(member, 'values')) {
        // @values 0.0.9=0 0.1.5=1: the value in versions that differ from the baseline
        for (const part of tag.split(/\s+/).filter(Boolean)) {
          const m = /^([\d.]+)=(.+)$/.exec(part);
          if (!m || !isApiVersion(m[1])) this.fail(member, `bad @values entry '${part}'`);
          overrides.set(API_VERSIONS.indexOf(m[1] as (typeof API_VERSIONS)[number]), m[2]);
        }
      }
      const values: { mask: number; json: string }[] = [];
      API_VERSIONS.forEach((_, i) => {
        if (!(memberMask & (1 << i))) return;
        const json = overrides.get(i) ?? JSON.stringify(base);
        const same = values.find((v) => v.json === json);
        if (same) same.mask |= 1 << i;
        else values.push({ mask: 1 << i, json });
      });
      this.consts.push({ owner: enumPath, name: member.name.getText(), values, doc: docText(member) });
    }
  }

  private readConstants(stmt: ts.VariableStatement, owner: string, mask: number): void {
    const stmtMask = mask & this.versionMask(stmt);
    for (const decl of stmt.declarationList.declarations) {
      const value = tagsNamed(stmt, 'value')[0];
      if (value === undefined) this.fail(decl, 'constants need a @value tag with their JSON value');
      try {
        JSON.parse(value);
      } catch {
        this.fail(decl, `@value is not JSON: ${value}`);
      }
      this.consts.push({
        owner,
        name: decl.name.getText(),
        values: [{ mask: stmtMask, json: value }],
        doc: docText(stmt),
      });
    }
  }

  private readFunction(decl: ts.FunctionDeclaration | ts.MethodSignature, owner: string,
                       mask: number, handle?: HandleIR): void {
    const name = decl.name!.getText();
    const key = `${owner}.${name}`;
    const overload = this.readOverload(decl, mask);
    if (overload.mask === 0) return;
    const isMethod = handle !== undefined;
    const defaultNative = isMethod
      ? `rt_${handle.nativeType}_${name}`
      : `rt_${owner ? owner.replace(/\./g, '_') + '_' : ''}${name}`;
    const native = tagsNamed(decl, 'native')[0] ?? defaultNative;
    if (!/^rt_[A-Za-z0-9_]+$/.test(native)) this.fail(decl, `bad @native name '${native}'`);
    const target = isMethod ? handle.methods : undefined;
    const existing = isMethod ? target!.find((f) => f.name === name) : this.functions.get(key);
    if (existing) {
      if (existing.native !== native) {
        this.fail(decl, `overloads of ${key} name different natives (${existing.native}, ${native})`);
      }
      for (const other of existing.overloads) {
        if (other.mask & overload.mask && other.params.length === overload.params.length &&
            other.params.every((p, i) => sameClass(p.type, overload.params[i].type))) {
          this.fail(decl, `overload cannot be told apart from the one at ${other.pos}`);
        }
      }
      existing.overloads.push(overload);
    } else {
      const fn: FunctionIR = { name, owner, native, overloads: [overload], isMethod };
      if (isMethod) target!.push(fn);
      else this.functions.set(key, fn);
    }
    for (const alias of tagsNamed(decl, 'alias')) this.addAlias(decl, owner, name, alias.trim(), overload, native);
  }

  /** Another name of a function: its own entry (so the glue names it in messages and every
   * version that has the function has it), sharing the native and the overloads. */
  private addAlias(decl: ts.Node, owner: string, of: string, alias: string, overload: OverloadIR,
                   native: string): void {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(alias)) this.fail(decl, `bad @alias name '${alias}'`);
    if (ts.isMethodSignature(decl)) this.fail(decl, '@alias is for functions of a namespace, not methods');
    const key = `${owner}.${alias}`;
    const copy: OverloadIR = { ...overload, params: overload.params.map((p) => ({ ...p })) };
    const existing = this.functions.get(key);
    if (existing) {
      if (existing.aliasOf !== of) this.fail(decl, `@alias ${alias} is already declared`);
      existing.overloads.push(copy);
    } else {
      this.functions.set(key, { name: alias, owner, native, overloads: [copy], isMethod: false, aliasOf: of });
    }
  }

  private readOverload(decl: ts.SignatureDeclarationBase, mask: number): OverloadIR {
    const defaults = new Map<string, DefaultValue>();
    for (const tag of tagsNamed(decl, 'default')) {
      const m = /^(\w+)\s+(.+)$/.exec(tag.trim());
      if (!m) this.fail(decl, `bad @default tag '${tag}' (expected '@default name value')`);
      defaults.set(m[1], this.jsonValue(decl, m[2]) as DefaultValue);
    }
    const invalid = new Map<string, string>();
    for (const tag of tagsNamed(decl, 'invalid')) {
      const m = /^(\w+)\s+(ESR\d{4})$/.exec(tag.trim());
      if (!m) this.fail(decl, `bad @invalid tag '${tag}' (expected '@invalid name ESRxxxx')`);
      invalid.set(m[1], m[2]);
    }
    const params: ParamIR[] = decl.parameters.map((p) => {
      const name = p.name.getText();
      if (!p.type) this.fail(p, `parameter ${name} needs a type`);
      const { type, nullable } = this.readType(p.type);
      const paramTag = ts.getJSDocParameterTags(p)[0];
      const param: ParamIR = {
        name,
        type,
        typeText: this.plainText(p.type),
        optional: p.questionToken !== undefined,
        nullable,
        doc: paramTag ? ts.getTextOfJSDocComment(paramTag.comment) ?? '' : '',
      };
      if (defaults.has(name)) {
        param.defaultValue = defaults.get(name);
        defaults.delete(name);
        if (!param.optional) this.fail(p, `${name} has a @default but is not optional`);
        this.checkDefault(p, type, param.defaultValue!);
      }
      if (invalid.has(name)) {
        param.invalidCode = invalid.get(name);
        invalid.delete(name);
      }
      return param;
    });
    for (const name of defaults.keys()) this.fail(decl, `@default names unknown parameter ${name}`);
    for (const name of invalid.keys()) this.fail(decl, `@invalid names unknown parameter ${name}`);
    let seenOptional = false;
    for (const p of params) {
      if (p.optional) seenOptional = true;
      else if (seenOptional) this.fail(decl, `required parameter ${p.name} after an optional one`);
    }
    if (!decl.type) this.fail(decl, 'functions need a declared return type');
    const returns = this.readType(decl.type).type;
    if (ts.getJSDocTags(decl).some((t) => t.tagName.text === 'rejects') && returns.kind !== 'promise') {
      this.fail(decl, '@rejects needs a function that returns a promise');
    }
    const overloadMask = mask & this.versionMask(decl);
    const throws: ThrowsIR[] = tagsNamed(decl, 'throws').map((t) => {
      // @throws ESR0205 [since 0.2.6] text: the bracket narrows the versions that throw it
      const m = /^(ESR\d{4})\s*(?:\[(since|until|versions)\s+([^\]]+)\])?\s*(.*)$/s.exec(t.trim());
      if (!m) this.fail(decl, `@throws must start with an ESR code: '${t}'`);
      const scope = m[2] ? this.maskFor(decl, m[2], m[3]) : ALL_VERSIONS_MASK;
      if ((scope & overloadMask) === 0) {
        this.fail(decl, `@throws ${m[1]} [${m[2]} ${m[3]}] names no version this declaration has`);
      }
      return { code: m[1], text: m[4].trim(), mask: scope & overloadMask };
    });
    for (const p of params) {
      if (p.invalidCode && !throws.some((t) => t.code === p.invalidCode)) {
        this.fail(decl, `@invalid ${p.name} ${p.invalidCode} needs a matching @throws ${p.invalidCode}`);
      }
    }
    const deprecated = ts.getJSDocTags(decl).find((t) => t.tagName.text === 'deprecated');
    return {
      mask: overloadMask,
      params,
      returns,
      returnText: this.plainText(decl.type),
      throws,
      doc: docText(decl),
      deprecated: deprecated ? ts.getTextOfJSDocComment(deprecated.comment) ?? '' : undefined,
      rejects: ts.getJSDocTags(decl).some((t) => t.tagName.text === 'rejects') || undefined,
      pos: this.pos(decl),
    };
  }

  private readInterface(decl: ts.InterfaceDeclaration): void {
    const name = decl.name.text;
    const handleTag = tagsNamed(decl, 'handle')[0];
    const mask = this.versionMask(decl);
    if (handleTag !== undefined) {
      const nativeType = handleTag.trim();
      if (!/^[a-z][a-z0-9_]*$/.test(nativeType)) this.fail(decl, `bad @handle type '${nativeType}'`);
      const handle: HandleIR = { name, nativeType, mask, methods: [], doc: docText(decl) };
      this.handles.set(name, handle);
      for (const member of decl.members) {
        if (!ts.isMethodSignature(member)) this.fail(member, 'handles have methods only');
        this.readFunction(member, name, mask, handle);
      }
      return;
    }
    const fields: FieldIR[] = decl.members.map((member) => {
      if (!ts.isPropertySignature(member) || !member.type) {
        this.fail(member, 'records have typed properties only');
      }
      const { type, nullable } = this.readType(member.type);
      const def = tagsNamed(member, 'default')[0];
      const defaultValue = def === undefined ? undefined : this.jsonValue(member, def) as DefaultValue;
      if (defaultValue !== undefined) {
        if (member.questionToken === undefined) {
          this.fail(member, `${member.name.getText()} has a @default but is not optional`);
        }
        this.checkDefault(member, type, defaultValue);
      }
      return {
        name: member.name.getText(),
        type,
        typeText: this.plainText(member.type),
        optional: member.questionToken !== undefined,
        nullable,
        defaultValue,
        mask: mask & this.versionMask(member),
        doc: docText(member),
      };
    });
    this.records.set(name, { name, fields, doc: docText(decl) });
  }

  private versionMask(node: ts.Node): number {
    let mask = ALL_VERSIONS_MASK;
    for (const tag of ['since', 'until', 'versions'] as const) {
      for (const v of tagsNamed(node, tag)) mask &= this.maskFor(node, tag, v);
    }
    return mask;
  }

  /** The versions a `since X`, `until X` (inclusive) or `versions a b` marker selects. */
  private maskFor(node: ts.Node, tag: string, value: string): number {
    const text = value.trim();
    if (tag === 'versions') {
      const list = text.split(/[\s,]+/);
      for (const item of list) if (!isApiVersion(item)) this.fail(node, `unknown version ${item}`);
      return maskWhere((av) => list.includes(av));
    }
    if (!/^\d+\.\d+\.\d+$/.test(text)) this.fail(node, `@${tag} needs a version, not '${text}'`);
    return tag === 'since'
      ? maskWhere((av) => compareVersions(av, text) >= 0)
      : maskWhere((av) => compareVersions(av, text) <= 0);
  }

  private jsonValue(node: ts.Node, text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      return this.fail(node, `@default value is not JSON: ${text}`);
    }
  }

  /** A default must be something the C side can hold, of the parameter's type and in range. */
  private checkDefault(node: ts.Node, t: TypeIR, value: DefaultValue): void {
    const bad = (why: string): never => this.fail(node, `bad @default ${JSON.stringify(value)}: ${why}`);
    switch (t.kind) {
      case 'number': case 'interval':
        if (typeof value !== 'number') return bad('expected a number');
        if (value < t.min || value > t.max) bad(`outside ${t.min}..${t.max}`);
        if (t.kind === 'number' && t.integer && !Number.isInteger(value)) bad('expected a whole number');
        return;
      case 'snapDown':
        if (typeof value !== 'number' || !t.values.includes(value)) bad(`expected one of ${t.values.join(', ')}`);
        return;
      case 'boolean':
        if (typeof value !== 'boolean') bad('expected true or false');
        return;
      case 'oneOfEach':
        if (!Array.isArray(value) || value.length === 0 || !value.every((x) => t.values.includes(x))) {
          bad(`expected a non-empty list of ${t.values.join(', ')}`);
        }
        return;
      default:
        bad(`defaults are supported for numbers, intervals, booleans and OneOfEach, not ${t.kind}`);
    }
  }

  /** The IR type of a type node; `X | null` and `X | undefined` mark the value nullable. */
  private readType(node: ts.TypeNode): { type: TypeIR; nullable: boolean } {
    if (ts.isUnionTypeNode(node)) {
      const rest = node.types.filter(
        (t) => !(ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword) &&
          t.kind !== ts.SyntaxKind.UndefinedKeyword
      );
      const nullable = rest.length !== node.types.length;
      if (rest.length === 1) return { type: this.readType(rest[0]).type, nullable };
      const texts = rest.map((t) => t.getText()).sort().join('|');
      if (texts === 'ArrayBuffer|number[]') return { type: { kind: 'byteSource' }, nullable };
      this.fail(node, `unsupported union type ${node.getText()}`);
    }
    if (ts.isParenthesizedTypeNode(node)) return this.readType(node.type);
    if (ts.isTypeLiteralNode(node)) {
      // { [key: string]: T }: a map object, checked as an object (the typings keep the shape)
      if (node.members.length > 0 && node.members.every(ts.isIndexSignatureDeclaration)) {
        return { type: { kind: 'object' }, nullable: false };
      }
      this.fail(node, 'object type literals are supported only as index signatures; declare an interface');
    }
    if (ts.isFunctionTypeNode(node)) return { type: { kind: 'function' }, nullable: false };
    if (ts.isArrayTypeNode(node)) {
      return { type: { kind: 'array', of: this.readType(node.elementType).type }, nullable: false };
    }
    switch (node.kind) {
      case ts.SyntaxKind.VoidKeyword:
      case ts.SyntaxKind.UndefinedKeyword:
        return { type: { kind: 'void' }, nullable: false };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: { kind: 'boolean' }, nullable: false };
      case ts.SyntaxKind.NumberKeyword:
        return { type: { kind: 'number', min: -Infinity, max: Infinity, integer: false }, nullable: false };
      case ts.SyntaxKind.StringKeyword:
        return { type: { kind: 'string', maxLen: 0 }, nullable: false };
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
        return { type: { kind: 'any' }, nullable: false };
      case ts.SyntaxKind.ObjectKeyword:
        return { type: { kind: 'object' }, nullable: false };
    }
    if (!ts.isTypeReferenceNode(node)) this.fail(node, `unsupported type ${node.getText()}`);
    const name = node.typeName.getText();
    const args = node.typeArguments ?? [];
    const num = (i: number, dflt: number): number =>
      args[i] === undefined ? dflt : (literalValue(args[i], (n, m) => this.fail(n, m)) as number);
    const list = (i: number): number[] => {
      const arg = args[i];
      if (!arg || !ts.isTupleTypeNode(arg)) this.fail(node, `${name} needs a tuple of numbers`);
      return arg.elements.map((e) => literalValue(e, (n, m) => this.fail(n, m)) as number);
    };
    const vocabulary = this.isVocabulary(node);
    if (vocabulary) {
      switch (name) {
        case 'Stringable': return { type: { kind: 'stringable', maxLen: num(0, 0) }, nullable: false };
        case 'Str': return { type: { kind: 'string', maxLen: num(0, 0) }, nullable: false };
        case 'Interval': {
          const unit = literalValue(args[0], (n, m) => this.fail(n, m));
          if (unit !== 'ms' && unit !== 's') this.fail(node, 'Interval unit must be ms or s');
          const min = num(1, 0);
          const max = num(2, 0);
          return { type: { kind: 'interval', unit, min, max: max === 0 ? Infinity : max }, nullable: false };
        }
        case 'Num':
        case 'Int':
          return { type: { kind: 'number', min: num(0, 0), max: num(1, 0), integer: name === 'Int' }, nullable: false };
        case 'AtLeast':
          return { type: { kind: 'number', min: num(0, 0), max: Infinity, integer: false }, nullable: false };
        case 'Bytes': return { type: { kind: 'bytes', minLen: num(0, 0), maxLen: num(1, 0) }, nullable: false };
        case 'PureObject': return { type: { kind: 'pure' }, nullable: false };
        case 'Timestamp': return { type: { kind: 'timestamp' }, nullable: false };
        case 'SnapDown': return { type: { kind: 'snapDown', values: list(0).sort((a, b) => a - b) }, nullable: false };
        case 'OneOfEach': return { type: { kind: 'oneOfEach', values: list(0) }, nullable: false };
        case 'NumTuple': {
          const length = num(0, 0);
          if (!Number.isInteger(length) || length < 1 || length > TUPLE_MAX) {
            this.fail(node, `NumTuple length must be 1 to ${TUPLE_MAX}`);
          }
          return { type: { kind: 'numTuple', length, min: num(1, 0), max: num(2, 0) }, nullable: false };
        }
      }
      this.fail(node, `vocabulary type ${name} is not known to the codegen`);
    }
    if (name === 'Promise') {
      return { type: { kind: 'promise', of: args[0] ? this.readType(args[0]).type : { kind: 'void' } }, nullable: false };
    }
    if (name === 'Array') return { type: { kind: 'array', of: this.readType(args[0]).type }, nullable: false };
    if (name === 'ArrayBuffer') return { type: { kind: 'bytes', minLen: 0, maxLen: 0 }, nullable: false };
    if (name === 'Date') return { type: { kind: 'timestamp' }, nullable: false };
    if (name === 'Error' || name === 'Object') return { type: { kind: 'object' }, nullable: false };
    const decl = this.declarationOf(node);
    if (decl && ts.isInterfaceDeclaration(decl)) {
      const isHandle = tagsNamed(decl, 'handle').length > 0;
      return { type: { kind: isHandle ? 'handle' : 'record', name }, nullable: false };
    }
    this.fail(node, `unsupported type reference ${name}`);
  }

  private declarationOf(node: ts.TypeReferenceNode): ts.Declaration | undefined {
    const symbol = this.checker.getSymbolAtLocation(node.typeName);
    return symbol?.declarations?.[0];
  }

  private isVocabulary(node: ts.TypeReferenceNode): boolean {
    const decl = this.declarationOf(node);
    return !!decl && ts.isTypeAliasDeclaration(decl) &&
      path.basename(decl.getSourceFile().fileName) === 'types.d.ts';
  }

  /** The type as authors see it: vocabulary aliases replaced by their plain types. */
  private plainText(node: ts.TypeNode): string {
    const transformer: ts.TransformerFactory<ts.Node> = (context) => {
      const visit = (n: ts.Node): ts.Node => {
        if (ts.isTypeReferenceNode(n) && this.isVocabulary(n)) {
          const plain = PLAIN_TYPES[n.typeName.getText()];
          return parseTypeNode(plain);
        }
        return ts.visitEachChild(n, visit, context);
      };
      return (root) => ts.visitNode(root, visit) as ts.Node;
    };
    const result = ts.transform(node, [transformer]);
    const text = this.printer.printNode(ts.EmitHint.Unspecified, result.transformed[0], node.getSourceFile());
    result.dispose();
    return text.replace(/\s+/g, ' ');
  }
}

function parseTypeNode(text: string): ts.TypeNode {
  const sf = ts.createSourceFile('plain.ts', `type T = ${text};`, ts.ScriptTarget.ES2015, false);
  const alias = sf.statements[0] as ts.TypeAliasDeclaration;
  return alias.type;
}

function maskWhere(pred: (v: string) => boolean): number {
  let mask = 0;
  API_VERSIONS.forEach((v, i) => {
    if (pred(v)) mask |= 1 << i;
  });
  return mask;
}

/** Broad JavaScript type class of an IR type: overloads must differ in at least one. */
export function typeClass(t: TypeIR): string {
  switch (t.kind) {
    case 'number': case 'snapDown': return 'number';
    case 'interval': return 'number|string';
    case 'timestamp': return 'number|object';
    case 'boolean': return 'boolean';
    case 'string': return 'string';
    case 'bytes': return 'object|string';
    case 'function': return 'function';
    case 'record': case 'object': case 'handle': case 'byteSource': case 'array': case 'oneOfEach':
    case 'numTuple':
      return 'object';
    default: return 'any';
  }
}

function sameClass(a: TypeIR, b: TypeIR): boolean {
  return typeClass(a) === typeClass(b);
}
