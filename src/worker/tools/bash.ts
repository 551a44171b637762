// The Bash tool: run one shell command through the host's exec.run and report its output, exit
// code and the sandbox it ran in. A non-zero exit is information for the model, not a tool failure.
import type { ExecRunResult } from '../../shared/capabilities.js';
import { BashInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { defineTool, parseToolInput } from './tool.js';

/** Timeout when the model gives none (ms); the schema caps a given one at 600,000. */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;

const DESCRIPTION = `Runs a bash command in the project directory and returns its output and exit code.

Usage:
- Each call runs \`bash -c <command>\` in a fresh shell started in the project directory: cd, exported variables and shell state do not carry over to the next call. Chain dependent steps with && in one command.
- Quote paths that contain spaces with double quotes.
- timeout is in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most 600000); a command that runs longer is killed with its whole process group.
- Output is capped; pipe long output through head or tail, or write it to a file and Read parts of it.
- Prefer the dedicated tools over shell equivalents: Glob instead of find or ls -R, Grep instead of grep or rg, Read instead of cat, head or tail, Edit and Write instead of sed, awk or echo redirection.
- Give a short description (5-10 words) of what the command does.
- Commands may need approval, depending on the permission mode and rules; a refusal says which mode or rule would allow it.
- Commands run in a sandbox: no network, no other processes, only system directories, the project and a few tool directories visible, and only the project (minus .git/hooks, .git/config, .vscode, .cadre and other protected paths), a private /tmp and a private home writable. Secret files (.env, keys, credentials) read as empty. The result says which sandbox was in force.`;

const CONFINED =
  'no network; only the project (not its protected paths), a private /tmp and home writable; secrets hidden';
const SANDBOX_NOTE: Record<ExecRunResult['sandbox'], string> = {
  bwrap: `[sandbox: bubblewrap — ${CONFINED}]`,
  unshare: `[sandbox: unshare — ${CONFINED}]`,
  none: '[sandbox: none — "sandbox": "off" in config: the command ran without isolation]',
};

/** The model-facing text of a finished command. */
function formatExecResult(result: ExecRunResult, timeoutMs: number): string {
  const parts: string[] = [];
  const stdout = result.stdout.trimEnd();
  const stderr = result.stderr.trimEnd();
  if (stdout !== '') parts.push(stdout);
  if (stderr !== '') parts.push(`[stderr]\n${stderr}`);
  if (stdout === '' && stderr === '') parts.push('(no output)');
  if (result.truncated) parts.push('[output truncated: only the first part is shown]');
  if (result.timedOut) parts.push(`Command timed out after ${timeoutMs} ms and was killed.`);
  else if (result.signal !== null) parts.push(`Command was killed by signal ${result.signal}.`);
  parts.push(`Exit code: ${result.exitCode ?? 'none'}`);
  for (const notice of result.notices ?? []) parts.push(`[${notice}]`);
  parts.push(SANDBOX_NOTE[result.sandbox]);
  return parts.join('\n');
}

async function run(input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolInput('Bash', BashInput, input);
  if (!parsed.ok) return parsed.result;
  const { command, timeout = DEFAULT_BASH_TIMEOUT_MS, description } = parsed.data;
  const envelope = await callCapability(
    ctx,
    'exec.run',
    description === undefined
      ? { command, timeoutMs: timeout }
      : { command, timeoutMs: timeout, description },
  );
  if (!envelope.ok) return capabilityFailure(envelope.error);
  // A timeout is the one outcome the model must not mistake for a finished command.
  return { content: formatExecResult(envelope.value, timeout), isError: envelope.value.timedOut };
}

/** The Bash tool. */
export const bashTool: Tool = defineTool({
  name: 'Bash',
  description: DESCRIPTION,
  input: BashInput,
  descriptions: {
    command: 'The command to run.',
    timeout: `Optional timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most 600000).`,
    description: 'A short description of what the command does, in 5-10 words.',
  },
  run,
});
