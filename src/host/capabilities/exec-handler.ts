// The exec.run capability of one run: the command judged by the shell policy (which only decides
// when to ask), a person asked when it says so, and the command run inside the sandbox, which is
// the boundary (or, with `sandbox: "off"`, loudly without one).
import type { Capabilities, ExecRunResult } from '../../shared/capabilities.js';
import { CadreError } from '../../shared/errors.js';
import { commandPreview } from '../approvals/preview.js';
import { audited, authorize, parseRequest, type EffectContext } from './effect-context.js';
import { runCommand } from './exec.js';
import { loadShellGrammar } from './policy.js';

/** The exec.run handler. */
export function execHandler(ctx: EffectContext): Capabilities['exec.run'] {
  return (raw) =>
    audited(
      ctx,
      'exec.run',
      String((raw as { command?: unknown } | null)?.command ?? '').slice(0, 200),
      async (call) => {
        const req = parseRequest('exec.run', raw);
        // "No prompts" never means "no sandbox": bypassPermissions runs commands only inside one.
        if (ctx.sandbox.settings.mode === 'off' && ctx.mode === 'bypassPermissions')
          throw new CadreError(
            'permission_denied',
            'bypassPermissions runs commands only inside the sandbox, and "sandbox" is "off" in config; use another permission mode, or turn the sandbox back on',
          );
        // Loaded at the first command of the process, not at start-up (most runs never need it).
        await loadShellGrammar();
        const reason = await authorize(
          ctx,
          call,
          { capability: 'exec.run', command: req.command },
          {
            action: 'run Bash',
            summary: `run: ${req.command}`,
            preview: () => commandPreview(req.command, req.description ? [req.description] : []),
            // The whole command, never cut (the request schema bounds it): its end is where a
            // hostile one hides its payload, past any cut a preview could make.
            detail: () =>
              commandPreview(req.command, [
                ...(req.description ? [req.description] : []),
                ...(req.timeoutMs ? [`timeout: ${req.timeoutMs} ms`] : []),
              ]),
          },
        );
        return { value: await runSandboxed(ctx, req.command, req.timeoutMs), reason };
      },
    );
}

/**
 * Runs an authorized command in the run's sandbox; tells the sandbox gate what the person should
 * hear (its notices, or that the sandbox was unavailable and the command refused).
 */
async function runSandboxed(
  ctx: EffectContext,
  command: string,
  timeoutMs: number | undefined,
): Promise<ExecRunResult> {
  const settings = ctx.sandbox.settings;
  try {
    const value = await runCommand({
      command,
      cwd: ctx.projectDir,
      sandbox: settings.mode,
      signal: ctx.signal,
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(settings.mode !== 'off' ? { sandboxStatus: await ctx.sandbox.status() } : {}),
      sandboxInputs: {
        home: ctx.homeDir,
        extraRoots: ctx.extraRoots,
        allowRead: settings.allowRead,
        denyRead: [...settings.denyRead, ...ctx.sandbox.records],
        protect: settings.protect,
        rules: ctx.rules,
      },
    });
    if (value.notices !== undefined) ctx.sandbox.notices(ctx.agentId, value.notices);
    return value;
  } catch (error) {
    if (error instanceof CadreError && error.code === 'sandbox_unavailable')
      ctx.sandbox.refused(ctx.agentId, error.message);
    throw error;
  }
}
