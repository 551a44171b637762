// `npm run bundle`: bundles the compiled output for fast start-up.
// - dist/worker-bundle/worker.cjs: the worker (CommonJS, so V8 can cache its compiled code), with
//   worker-<node version>-<arch>.cache beside it and entry.mjs (scripts/worker-loader.mjs) to load both;
// - dist/worker-bundle/process-entry.mjs: the worker of process isolation mode;
// - dist/host/cli/cadre.mjs: the CLI (piscina stays external).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'worker-bundle');
const banner = {
  js: "import { createRequire as __cadreRequire } from 'node:module'; const require = __cadreRequire(import.meta.url);",
};
const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };

await Promise.all([
  build({
    ...common,
    entryPoints: [path.join(dist, 'worker', 'entry.js')],
    format: 'cjs',
    outfile: path.join(out, 'worker.cjs'),
  }),
  build({
    ...common,
    entryPoints: [path.join(dist, 'worker', 'process-entry.js')],
    format: 'esm',
    banner,
    outfile: path.join(out, 'process-entry.mjs'),
  }),
  build({
    ...common,
    entryPoints: [path.join(dist, 'host', 'cli', 'main.js')],
    format: 'esm',
    banner,
    external: ['piscina'],
    outfile: path.join(dist, 'host', 'cli', 'cadre.mjs'),
  }),
]);
copyFileSync(path.join(root, 'scripts', 'worker-loader.mjs'), path.join(out, 'entry.mjs'));

// The code cache: compile and run the worker's top level (it only defines things), then keep what
// V8 compiled. It is valid for this Node version only; other versions compile from source.
const file = path.join(out, 'worker.cjs');
const script = new vm.Script(
  `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`,
  { filename: file },
);
const module = { exports: {} };
script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, out);
if (typeof module.exports.default !== 'function') throw new Error('worker.cjs has no default export');
writeFileSync(path.join(out, `worker-${process.version}-${process.arch}.cache`), script.createCachedData());
