// The compiler as commands use it, without loading TypeScript, rollup or terser: building
// (compileApp loads the stages only when the build cache has nothing current), packages, maps,
// diagnostics and the host tools. `beacon run app.bapp` must not pay for a compiler it does not
// use; index.ts exports everything, the heavy parts included.
export { BuildError, Diagnostic, formatDiagnostic } from './diagnostics';
export { compileApp, CompileOptions, CompileResult, SizeReport } from './compileApp';
export { DEFAULT_ENGINE, Engine, ENGINES, ensureHostTools, HostToolsError, isEngine } from './hostTools';
export { formatEngineVersion, PackReport } from './pack';
export { PackageHeader, readPackageHeader, readSignatureBlock } from './appPackage';
export { MinifyMode } from './minify';
export { generateKeyPair, keyId } from './sign';
export { mapFileFor, rewriteLocations, loadPackageMap, PackageMap } from './trace';
