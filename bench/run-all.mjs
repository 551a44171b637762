// Runs every benchmark in turn (each prints its ratios and writes bench/results/<name>.json).
// Usage: npm run bench [-- registry kernel fanout thread-cost batch records sandbox seccomp sandbox-policy mcp chat explore-eval events-memory]
import { spawnSync } from 'node:child_process';

const all = [
  'registry',
  'kernel',
  'fanout',
  'thread-cost',
  'batch',
  'records',
  'sandbox',
  'seccomp',
  'sandbox-policy',
  'mcp',
  'chat',
  'explore-eval',
  'events-memory',
];
const chosen = process.argv.slice(2).filter((a) => all.includes(a));
let failed = 0;
for (const name of chosen.length ? chosen : all) {
  console.log(`\n=== bench/${name}`);
  const r = spawnSync('npx', ['tsx', `bench/${name}.ts`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
