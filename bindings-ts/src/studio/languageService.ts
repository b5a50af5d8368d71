// Type errors and completions for the studio's editor, as you type: a TypeScript language
// service over the app being edited, the typings of its API version and the device's built-ins
// (deviceLib.ts), with the compiler options of the build's type check (bundle.ts), so the editor
// flags what `beacon build` would refuse.
import * as path from 'path';
import * as ts from 'typescript';
import { ApiVersion, typingsFile } from '../codegen/versions';
import { deviceLibText } from '../compiler/deviceLib';
import * as fs from 'fs';

export interface EditorDiagnostic {
  /** Offsets in the source. */
  from: number;
  to: number;
  severity: 'error' | 'warning';
  message: string;
  /** 1-based line, as the build reports it. */
  line: number;
}

export interface EditorCompletion {
  label: string;
  type: string;
}

const APP = '/studio/app.ts';

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES5,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  noLib: true,
  types: [],
  strict: true,
  alwaysStrict: true,
  skipLibCheck: true,
  noEmit: true,
};

/** One language service per API version, over one app file whose text changes. */
export class EditorService {
  private readonly services = new Map<ApiVersion, { ls: ts.LanguageService; set(text: string): void }>();

  private service(api: ApiVersion): { ls: ts.LanguageService; set(text: string): void } {
    const cached = this.services.get(api);
    if (cached) return cached;
    const lib = `/studio/lib.beacon-${api}.d.ts`;
    const typings = typingsFile(api);
    const files = new Map<string, { text: string; version: number }>([
      [APP, { text: '', version: 0 }],
      [lib, { text: deviceLibText(api), version: 0 }],
      [typings, { text: fs.readFileSync(typings, 'utf8'), version: 0 }],
    ]);
    const host: ts.LanguageServiceHost = {
      getCompilationSettings: () => OPTIONS,
      getScriptFileNames: () => [APP, typings, lib],
      getScriptVersion: (f) => String(files.get(f)?.version ?? 0),
      getScriptSnapshot: (f) => {
        const file = files.get(f);
        if (file) return ts.ScriptSnapshot.fromString(file.text);
        return fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined;
      },
      getCurrentDirectory: () => path.dirname(APP),
      getDefaultLibFileName: () => lib,
      fileExists: (f) => files.has(f) || ts.sys.fileExists(f),
      readFile: (f) => files.get(f)?.text ?? ts.sys.readFile(f),
    };
    const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
    const entry = {
      ls,
      set(text: string): void {
        const app = files.get(APP)!;
        if (app.text !== text) files.set(APP, { text, version: app.version + 1 });
      },
    };
    this.services.set(api, entry);
    return entry;
  }

  diagnostics(source: string, api: ApiVersion): EditorDiagnostic[] {
    const { ls, set } = this.service(api);
    set(source);
    const sf = ls.getProgram()?.getSourceFile(APP);
    const all = [...ls.getSyntacticDiagnostics(APP), ...ls.getSemanticDiagnostics(APP)];
    return all.map((d) => {
      const from = d.start ?? 0;
      const line = sf ? sf.getLineAndCharacterOfPosition(from).line + 1 : 1;
      return {
        from,
        to: from + (d.length ?? 0),
        severity: d.category === ts.DiagnosticCategory.Error ? 'error' : 'warning',
        message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
        line,
      };
    });
  }

  completions(source: string, api: ApiVersion, pos: number): EditorCompletion[] {
    const { ls, set } = this.service(api);
    set(source);
    const info = ls.getCompletionsAtPosition(APP, Math.max(0, Math.min(pos, source.length)), {});
    if (!info) return [];
    return info.entries.slice(0, 400).map((e) => ({ label: e.name, type: completionType(e.kind) }));
  }
}

function completionType(kind: ts.ScriptElementKind): string {
  switch (kind) {
    case ts.ScriptElementKind.functionElement:
    case ts.ScriptElementKind.memberFunctionElement:
      return 'function';
    case ts.ScriptElementKind.moduleElement:
      return 'namespace';
    case ts.ScriptElementKind.classElement:
      return 'class';
    case ts.ScriptElementKind.interfaceElement:
    case ts.ScriptElementKind.typeElement:
      return 'type';
    case ts.ScriptElementKind.constElement:
      return 'constant';
    case ts.ScriptElementKind.keyword:
      return 'keyword';
    case ts.ScriptElementKind.memberVariableElement:
    case ts.ScriptElementKind.memberGetAccessorElement:
      return 'property';
    default:
      return 'variable';
  }
}
