// `cadre`, built from source with agents run in the test-only workers (fault-runtime.ts): a task
// whose prompt is `fault:<kind>` fails in that way. Run with `node --import tsx` (faultCli in
// ../cli.ts); `cadre batch` relaunches it the same way (fork keeps the --import). The shipped
// executable (src/host/cli/main.ts) has no path to these workers.
import { processContext } from '../../../src/host/cli/context.js';
import { runCli } from '../../../src/host/cli/program.js';
import { createFaultRuntime } from './fault-runtime.js';

const args = process.argv.slice(2);
const script = process.argv[1];
process.exitCode = await runCli(args, {
  ...processContext(),
  ...(script !== undefined ? { relaunch: { script, args } } : {}),
  startRuntime: createFaultRuntime,
});
