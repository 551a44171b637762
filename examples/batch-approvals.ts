// A batch of tasks with a custom approval resolver: writes under `notes/` are allowed, every other
// call the policy asks about is denied with a reason the model sees. Ctrl-C cancels the batch.
//
//   ANTHROPIC_API_KEY=... npx tsx examples/batch-approvals.ts [project-dir]
import { callbackResolver, createRuntime, type ApprovalRequest, type ResolverAnswer } from 'cadre';

const dir = process.argv[2] ?? process.cwd();

/** Allows a write into notes/; denies everything else that needs approval. */
function decide(request: ApprovalRequest): ResolverAnswer {
  if (request.capability === 'fs.write' && /^write notes\//.test(request.summary))
    return { decision: 'allow', reason: 'notes/ is the scratch folder' };
  return { decision: 'deny', reason: `${request.summary}: only writes under notes/ are allowed` };
}

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

await using runtime = await createRuntime({
  cwd: dir,
  // Answered by code, not a person: the wait is not given back to the run's deadline.
  approvals: callbackResolver(decide, { interactive: false }),
});
const tasks = [
  { id: 'todo', agent: 'general-purpose', prompt: 'List the TODO comments in src/ into notes/todo.md' },
  { id: 'readme', agent: 'general-purpose', prompt: 'Summarise README.md into notes/readme.md' },
];
let failed = 0;
for await (const result of runtime.batch(tasks, { concurrency: 2, timeout: 300, signal: stop.signal })) {
  console.log(
    `${result.id}: ${result.status} (${result.refused ?? 0} refused) ${result.result.slice(0, 200)}`,
  );
  if (result.status !== 'completed') failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
