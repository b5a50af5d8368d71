// The micro-app compiler: TypeScript or JavaScript in, app package (.bapp) out.
//
//   bundleApp       type check against the API version's typings and built-ins, lower to ES5,
//                   bundle (rollup), with a source map
//   checkEs5Syntax  hold the bundle to what the engines parse
//   selectPolyfills what Duktape lacks of the version's built-ins (Duktape packages only)
//   minifyScript    terser, ES5 in and out, the source map composed through it
//   packApp         engine bytecode and package header (native beacon-pack)
//   signPackage     optional ECDSA P-256 signature block
//
// Beside the package goes <package>.map: minified script -> TypeScript sources, which `beacon
// run` and `beacon trace` use to show errors at their place in the source.
//
// compileApp goes through the build cache (buildCache.ts) and runs the stages (pipeline.ts) only
// when nothing current is cached. This module re-exports the whole compiler, TypeScript
// included; commands that may compile nothing import the light modules (compileApp,
// appPackage, trace, hostTools) directly.

export { BuildError, Diagnostic, formatDiagnostic } from './diagnostics';
export { bundleApp, BundleOptions, BundleResult } from './bundle';
export { checkEs5Syntax } from './es5check';
export {
  compileApp,
  CompileOptions,
  CompileResult,
  es5FileFor,
  minFileFor,
  SCRIPT_NAME,
  SizeReport,
} from './compileApp';
export { BuildCache, compilerFingerprint, openBuildCache } from './buildCache';
export {
  DEFAULT_ENGINE,
  Engine,
  ENGINES,
  ensureHostTools,
  HostToolsError,
  hostBuildDir,
  isEngine,
  toolPath,
} from './hostTools';
export { formatEngineVersion, PackReport } from './pack';
export { PackageHeader, readPackageHeader, readSignatureBlock } from './appPackage';
export { MinifyMode, MINIFY_MODES } from './minify';
export { generateKeyPair, keyId } from './sign';
export { mapFileFor, rewriteLocations, loadPackageMap, PackageMap } from './trace';
export { SourceMapV3, lookupPosition } from './sourceMap';

