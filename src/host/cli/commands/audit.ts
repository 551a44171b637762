// `cadre audit verify`: checks the project's audit log, line by line, against its hash chain and
// checkpoint; prints the first broken link with its line number and exits 1, or says it is intact.
import path from 'node:path';
import type { Command } from 'commander';
import { verifyAuditLog } from '../../records/audit-verify.js';
import { type CliContext, globalOptions, inertJson } from '../context.js';
import { projectRecords } from './records-location.js';

/** Registers `audit` and its subcommands. */
export function registerAuditCommand(program: Command, ctx: CliContext): void {
  const audit = program.command('audit').description("check the project's tamper-evident audit log");

  audit
    .command('verify')
    .description('check every line of the audit log against its hash chain; exit 1 at the first broken link')
    .option('--file <file>', "an audit log to check (default: the project's, in its records directory)")
    .option('--json', 'print the verdict as JSON: { path, ok, lines, line?, reason?, warnings }')
    .action(async (opts: { file?: string; json?: boolean }, command: Command) => {
      const options = await globalOptions(command, ctx);
      const file =
        opts.file !== undefined
          ? path.resolve(ctx.processCwd, opts.file)
          : (await projectRecords(options, ctx)).auditLog;
      const verdict = await verifyAuditLog(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw new Error(`cannot read the audit log ${file}: ${error.message}`);
      });
      if (verdict === undefined) {
        if (opts.json) ctx.io.stdout(`${JSON.stringify({ path: file, ok: false, reason: 'missing' })}\n`);
        else
          ctx.io.stderr(
            `cadre: no audit log at ${file} (no agent has run in this project yet, or it was deleted)\n`,
          );
        ctx.exitCode = 1;
        return;
      }
      if (opts.json) ctx.io.stdout(`${inertJson(JSON.stringify({ path: file, ...verdict }, null, 2))}\n`);
      else {
        for (const warning of verdict.warnings) ctx.io.stderr(`cadre: warning: ${warning}\n`);
        if (verdict.ok)
          ctx.io.stdout(
            `audit log intact: ${verdict.lines} lines, every link of the hash chain holds (${file})\n`,
          );
        else ctx.io.stdout(`audit log broken at line ${verdict.line}: ${verdict.reason} (${file})\n`);
      }
      ctx.exitCode = verdict.ok ? 0 : 1;
    });
}
