// `npm run bundle`: bundles the compiled output for fast start-up.
// - dist/worker-bundle/worker.cjs: the worker thread's code, loaded by entry.cjs
//   (scripts/worker-loader.cjs);
// - dist/worker-bundle/process-entry.cjs: the worker of process isolation mode;
// - dist/host/cli/cadre.cjs: the CLI, run by the executable cadre.mjs (scripts/cli-loader.mjs);
// - dist/host-bundle/io-thread.cjs: the host's I/O threads (Grep's reads, glob walks), loaded by
//   io-entry.cjs (scripts/io-loader.cjs);
// - dist/host-bundle/page-thread.cjs: the thread that turns fetched pages into text (WebFetch),
//   started on the first fetch; the HTML converter lives only here;
// - dist/host/ui/chat-ui.mjs: `cadre chat`'s Ink app with React, loaded by the chat command only
//   (an ES module: Ink's layout engine loads its WebAssembly with a top-level await);
// - dist/code-cache.cjs (scripts/code-cache.cjs) and, beside each .cjs bundle, V8's code cache for
//   the Node version that ran the build. Other versions compile from source. The worker's and the
//   CLI's caches are trained on real runs (scripts/train-code-cache.ts).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const workerDir = path.join(dist, 'worker-bundle');
const cliDir = path.join(dist, 'host', 'cli');
const ioDir = path.join(dist, 'host-bundle');
const uiDir = path.join(dist, 'host', 'ui');
// Minified: comments and whitespace made up half of each bundle, and every worker thread reads,
// holds and compiles its bundle's source (a thread holds about 8 MB less). Names are not kept:
// nothing reads a function's or class's name, and errors carry their own `name`.
const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', minify: true };
// Worker bundles use cadre's own Headers (and a FormData nothing is an instance of) wherever their
// code, the SDK's included, names the global: Node's would load its whole fetch implementation into
// every thread, and the worker's HTTP goes through the host anyway (src/worker/models/host-fetch.ts).
const workerShims = { inject: [path.join(dist, 'worker', 'models', 'web-shims.js')] };
// CommonJS bundles keep their location-relative paths: import.meta.url becomes the bundle's own URL.
const cjs = {
  ...common,
  format: 'cjs',
  define: { 'import.meta.url': '__cadreModuleUrl' },
  banner: { js: "var __cadreModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
};

// Caches of an earlier build no longer match the new bundles, whatever Node version made them.
for (const dir of [workerDir, cliDir, ioDir]) {
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  for (const name of names)
    if (name.endsWith('.cache') || name.endsWith('.cjs.id')) rmSync(path.join(dir, name));
}

await Promise.all([
  build({
    ...cjs,
    ...workerShims,
    entryPoints: [path.join(dist, 'worker', 'entry.js')],
    outfile: path.join(workerDir, 'worker.cjs'),
  }),
  build({
    ...cjs,
    ...workerShims,
    entryPoints: [path.join(dist, 'worker', 'process-entry.js')],
    outfile: path.join(workerDir, 'process-entry.cjs'),
  }),
  build({
    ...cjs,
    entryPoints: [path.join(dist, 'host', 'capabilities', 'fs', 'io-thread.js')],
    outfile: path.join(ioDir, 'io-thread.cjs'),
    metafile: true,
  }).then((result) => {
    // The I/O threads run the policy function and the file effects only: zod (or any package)
    // in their bundle costs every process about 100 ms of CPU at its first Grep or Glob.
    // (zod is imported for its types and schemas elsewhere, and must be shaken out to nothing here.)
    const packages = Object.values(result.metafile.outputs)
      .flatMap((output) => Object.entries(output.inputs))
      .filter(([input, used]) => input.includes('node_modules') && used.bytesInOutput > 0)
      .map(([input]) => input);
    if (packages.length > 0)
      throw new Error(`dist/host-bundle/io-thread.cjs pulls in packages: ${packages.slice(0, 5).join(', ')}`);
  }),
  // The MCP client (the SDK and cadre's adapter over it), loaded only when a server first starts.
  build({
    ...cjs,
    entryPoints: [path.join(dist, 'host', 'capabilities', 'mcp', 'sdk-adapter.js')],
    outfile: path.join(ioDir, 'mcp-adapter.cjs'),
  }),
  build({
    ...cjs,
    entryPoints: [path.join(dist, 'host', 'web', 'page-thread.js')],
    outfile: path.join(ioDir, 'page-thread.cjs'),
  }),
  build({
    ...cjs,
    entryPoints: [path.join(cliDir, 'main.js')],
    // web-tree-sitter (the shell policy's bash grammar) is required from node_modules, with its
    // wasm, only when a first command is judged: most CLI runs never load it. Never bundled.
    external: ['piscina', 'web-tree-sitter'],
    outfile: path.join(cliDir, 'cadre.cjs'),
  }),
  build({
    ...common,
    format: 'esm',
    entryPoints: [path.join(uiDir, 'chat', 'run-chat.js')],
    outfile: path.join(uiDir, 'chat-ui.mjs'),
    // React's production build, chosen when bundled; its development build renders several times slower.
    define: { 'process.env.NODE_ENV': '"production"' },
    // Ink's devtools (an optional peer, loaded only with DEV=true) are left out: bundled, their
    // import of react-devtools-core would become a static import of a package that is not there.
    plugins: [
      {
        name: 'no-ink-devtools',
        setup(b) {
          b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
            args.importer.includes(`${path.sep}ink${path.sep}`)
              ? { path: 'ink-devtools', namespace: 'cadre-stub' }
              : undefined,
          );
          b.onLoad({ filter: /.*/, namespace: 'cadre-stub' }, () => ({
            contents: "throw new Error('Ink devtools are not part of cadre');",
          }));
        },
      },
    ],
    // CommonJS dependencies (React, signal-exit) call require(): give the ES module one.
    banner: {
      js: "import { createRequire as __cadreRequire } from 'node:module'; const require = __cadreRequire(import.meta.url);",
    },
  }),
]);
// V8 keeps a source with a single character past Latin-1 in two bytes per character, and a bundle's
// source lives in every thread that loads it. esbuild escapes strings, but not regex literals.
for (const file of [
  path.join(workerDir, 'worker.cjs'),
  path.join(workerDir, 'process-entry.cjs'),
  path.join(cliDir, 'cadre.cjs'),
  path.join(ioDir, 'io-thread.cjs'),
  path.join(ioDir, 'mcp-adapter.cjs'),
]) {
  const text = readFileSync(file, 'utf8');
  const at = text.search(/[\u0080-\uffff]/);
  if (at >= 0)
    throw new Error(
      `${file} holds a non-ASCII character near ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}: escape it in the source (\\uXXXX)`,
    );
}
// Besides no package (checked at its build above), a bound on the I/O bundle's size: the policy and
// the file effects are about 100 KB minified; zod alone would add several times that.
const ioSize = readFileSync(path.join(ioDir, 'io-thread.cjs')).length;
if (ioSize > 125_000)
  throw new Error(
    `dist/host-bundle/io-thread.cjs is ${ioSize} bytes: something large was pulled into the I/O threads`,
  );
copyFileSync(path.join(root, 'scripts', 'code-cache.cjs'), path.join(dist, 'code-cache.cjs'));
copyFileSync(path.join(root, 'scripts', 'worker-loader.cjs'), path.join(workerDir, 'entry.cjs'));
copyFileSync(path.join(root, 'scripts', 'io-loader.cjs'), path.join(ioDir, 'io-entry.cjs'));
copyFileSync(path.join(root, 'scripts', 'cli-loader.mjs'), path.join(cliDir, 'cadre.mjs'));
chmodSync(path.join(cliDir, 'cadre.mjs'), 0o755);

const { writeCache, writeId } = createRequire(import.meta.url)(path.join(dist, 'code-cache.cjs'));
writeId(path.join(workerDir, 'worker.cjs'));
writeId(path.join(cliDir, 'cadre.cjs'));
writeId(path.join(ioDir, 'io-thread.cjs'));
writeCache(path.join(ioDir, 'io-thread.cjs'));
writeId(path.join(ioDir, 'mcp-adapter.cjs'));
if (typeof writeCache(path.join(ioDir, 'mcp-adapter.cjs')).openSession !== 'function')
  throw new Error('mcp-adapter.cjs has no openSession export');
// A cache made from a bundle's top level holds only what its top level compiled: a worker thread
// then compiled the model client, the loop and the tools at its first run (about 7 ms of CPU per
// thread here), and the CLI its launch path. These two are made after real runs instead.
execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'train-code-cache.ts')], {
  cwd: root,
  stdio: 'inherit',
});
