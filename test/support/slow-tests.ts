// The slow test project: the files that take the longest (each measured at several seconds to
// minutes of wall time on 2 cores), so that the fast project (`npm run test:fast`) is an inner
// loop of about a minute. `npm test` runs both projects. A test file that spawns the CLI many
// times, drives a terminal, runs sandboxed commands or exhausts a resource on purpose belongs here.

/** Globs, relative to the repository root, of the test files in the slow project. */
export const SLOW_TESTS: readonly string[] = [
  // The fault storm and memory limits: workers crash, hang and run out of heap on purpose.
  'test/host/pool/faults.test.ts',
  'test/host/pool/memory.test.ts',
  // The batch CLI: thousands of tasks, supervisors, crash recovery.
  'test/host/batch/batch-cli.test.ts',
  'test/host/batch/batch-failpaths.test.ts',
  // The terminal tests: the real binary in a private tmux server.
  'test/host/cli/chat-tty.test.ts',
  'test/host/cli/explore-tty.test.ts',
  'test/host/cli/run-tty.test.ts',
  'test/host/cli/terminal.test.ts',
  // The attack suites: hostile commands through the CLI and the sandbox backends.
  'test/host/cli/*-attacks.test.ts',
  'test/host/cli/sandbox-modes.test.ts',
  'test/host/capabilities/sandbox-files.test.ts',
  'test/host/capabilities/sandbox-isolation.test.ts',
  'test/host/capabilities/sandbox-limits.test.ts',
  'test/host/capabilities/sandbox-setid.test.ts',
  'test/host/capabilities/sandbox.test.ts',
  // Replies of hundreds of megabytes, the exploration evaluation and the examples.
  'test/host/cli/huge-reply.test.ts',
  'test/bench/explore-eval.test.ts',
  'test/examples/examples.test.ts',
  // The longest of the rest in a full run: bash against the shell parser on generated commands,
  // whole CLI runs end to end and on failure paths, the docs' code blocks type-checked, the chat
  // UI rendered through whole conversations, MCP servers started by the CLI.
  'test/host/capabilities/shell-differential.test.ts',
  'test/host/kernel-e2e.test.ts',
  'test/host/cli/failpaths-run.test.ts',
  'test/api/doc-blocks.test.ts',
  'test/api/doc-commands.test.ts',
  'test/host/ui/chat-app.test.tsx',
  'test/host/cli/mcp-cli.test.ts',
  // Tests that wait on real time by design: a person answering an approval, a reply paced like a
  // model's stream, races with a file swapped underneath, MCP servers killed and restarted with
  // backoff, the second CLI attack suite.
  'test/host/agents/approvals.test.ts',
  'test/host/capabilities/authorization.test.ts',
  'test/host/agents/prestart.test.ts',
  // Thirteen runtimes one after another on real projects, waiting for threads to park.
  'test/host/agents/fanout-memory.test.ts',
  'test/host/capabilities/fs-pin-poison.test.ts',
  'test/host/capabilities/fs-walk-swap.test.ts',
  'test/host/capabilities/mcp/hub.test.ts',
  'test/host/capabilities/mcp/mcp-lifecycle.test.ts',
  'test/host/capabilities/mcp/mcp-http.test.ts',
  'test/host/capabilities/mcp/mcp-runs.test.ts',
  'test/host/cli/integration-attacks-2.test.ts',
  // The terminal attack suites (tmux), commands run in the sandbox, and the CLI run end to end
  // (its agents, explore, fan-out and records commands).
  'test/host/cli/*-attacks-tty.test.ts',
  'test/host/capabilities/exec.test.ts',
  'test/host/capabilities/sandbox-plan.test.ts',
  'test/host/capabilities/sandbox-etc-view.test.ts',
  'test/host/cli/agents.test.ts',
  'test/host/cli/run-explore.test.ts',
  'test/host/cli/fanout.test.ts',
  'test/host/cli/records.test.ts',
];
