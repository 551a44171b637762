// Explore a codebase from a script: one read-only `explore` agent per question, all at once.
// With no ANTHROPIC_API_KEY set it runs on the embedded offline model, which needs no network.
//
//   npx tsx examples/explore.ts [project-dir] "where is the config loaded?" ["another question"]
import { createRuntime, type TaskOutput } from 'cadre';

const [dir = process.cwd(), ...asked] = process.argv.slice(2);
const questions = asked.length > 0 ? asked : ['where are the tests?'];

await using runtime = await createRuntime({ cwd: dir });
const reports: TaskOutput[] = await Promise.all(
  questions.map((prompt) => runtime.run({ subagent_type: 'explore', prompt })),
);
for (const [i, report] of reports.entries()) {
  console.log(`## ${questions[i]}\n(${report.status}, ${report.toolCalls} tool calls)\n\n${report.result}\n`);
}
process.exitCode = reports.every((r) => r.status === 'completed') ? 0 : 1;
