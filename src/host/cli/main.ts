#!/usr/bin/env node
// The `cadre` executable: wiring only.
import { processContext } from './context.js';
import { runCli } from './program.js';

// Benchmarks read the CLI's own peak memory and CPU from this line.
if (process.env.CADRE_REPORT_RESOURCES === '1') {
  process.on('exit', () => {
    const r = process.resourceUsage();
    process.stderr.write(
      `${JSON.stringify({ cadreResources: { maxRSSKb: r.maxRSS, userUs: r.userCPUTime, systemUs: r.systemCPUTime } })}\n`,
    );
  });
}

const args = process.argv.slice(2);
const script = process.argv[1];
process.exitCode = await runCli(args, {
  ...processContext(),
  ...(script !== undefined ? { relaunch: { script, args } } : {}),
});
