// `cadre mcp list | trust`: the MCP servers an agent may use, their status, tools and the agents
// that see them; and trust in the servers a project configures, recorded in ~/.cadre.
import { realpath } from 'node:fs/promises';
import type { Command } from 'commander';
import { closest } from '../../../shared/closest.js';
import { McpHub } from '../../capabilities/mcp/hub.js';
import { listMcpServers, projectSources } from '../../capabilities/mcp/listing.js';
import { describeConfig } from '../../capabilities/mcp/server-spec.js';
import { trustId, TrustStore } from '../../capabilities/mcp/trust.js';
import { loadConfig, type LoadedConfig } from '../../config.js';
import { formatIssue } from '../../registry/index.js';
import { loadRegistry } from '../../registry/load-registry.js';
import { type CliContext, globalOptions, inertJson } from '../context.js';
import { mcpListText } from './mcp-format.js';

/** Registers `mcp` and its subcommands. */
export function registerMcpCommand(program: Command, ctx: CliContext): void {
  const mcp = program
    .command('mcp')
    .description('list MCP servers and their tools; trust the servers a project configures');

  mcp
    .command('list')
    .description(
      'list every MCP server with its status, its tools (as agents see them) and the agents that use it',
    )
    .option('--json', 'print a JSON array, one object per server')
    .option('--no-connect', 'do not start servers to read their tools')
    .action(async (opts: { json?: boolean; connect: boolean }, command: Command) => {
      const { cwd, home, config, agents, clean } = await load(command, ctx);
      const hub = new McpHub({ projectDir: cwd, home, sandboxMode: config.merged.sandbox.mode });
      try {
        const servers = await listMcpServers({
          configured: config.merged.mcpServers,
          agents,
          trust: await TrustStore.open(home),
          hub,
          env: ctx.env,
          bases: { cwd, home },
          rules: config.merged.permissions,
          defaultMode: config.merged.permissions.defaultMode,
          connect: opts.connect,
        });
        ctx.io.stdout(
          opts.json ? `${inertJson(JSON.stringify(servers, null, 2))}\n` : mcpListText(servers, cwd, clean),
        );
      } finally {
        await hub.close();
      }
    });

  mcp
    .command('trust')
    .description(
      'trust the MCP servers this project configures (.mcp.json, .cadre/config.json, project agent files), so runs may start them',
    )
    .argument(
      '[servers...]',
      'server names (agent/server for one defined inside an agent file); default: all of them',
    )
    .option('--revoke', 'forget the trust instead')
    .action(async (names: string[], opts: { revoke?: boolean }, command: Command) => {
      const { cwd, home, config, agents, clean } = await load(command, ctx);
      const store = await TrustStore.open(home);
      if (opts.revoke) {
        const removed = await store.revoke(cwd, names);
        ctx.io.stdout(
          removed.length > 0
            ? `no longer trusted in ${cwd}: ${removed.join(', ')}\n`
            : `nothing to revoke: ${names.length > 0 ? names.join(', ') : 'no server'} is trusted in ${cwd}\n`,
        );
        return;
      }
      const sources = projectSources(config.merged.mcpServers, agents);
      if (sources.length === 0) {
        ctx.io.stdout(`${cwd} configures no MCP servers; servers in ~/.cadre/config.json need no trust\n`);
        return;
      }
      const ids = sources.map(trustId);
      const unknown = names.filter((n) => !ids.includes(n));
      if (unknown.length > 0) {
        const hints = unknown.map((n) => {
          const hint = closest(n, ids);
          return `"${n}"${hint ? ` (did you mean "${hint}"?)` : ''}`;
        });
        ctx.io.stderr(
          `cadre: this project configures no MCP server ${hints.join(', ')}; its servers: ${ids.join(', ')}\n`,
        );
        ctx.exitCode = 1;
        return;
      }
      const chosen = names.length === 0 ? sources : sources.filter((s) => names.includes(trustId(s)));
      await store.trust(cwd, chosen);
      for (const s of chosen)
        ctx.io.stdout(clean.block(`trusted ${trustId(s)} (${s.origin}): ${describeConfig(s.config)}`) + '\n');
      ctx.io.stdout(`recorded in ${store.file}; a change to a server's configuration needs trusting again\n`);
    });
}

async function load(command: Command, ctx: CliContext) {
  const options = await globalOptions(command, ctx);
  // Trust records and runs key projects by their real path.
  const cwd = await realpath(options.cwd);
  const config: LoadedConfig = await loadConfig({ cwd, home: options.home });
  for (const issue of config.errors)
    ctx.io.stderr(`cadre: config: ${options.clean.line(formatIssue(issue))}\n`);
  if (config.errors.length > 0) ctx.exitCode = 1;
  const registry = await loadRegistry({
    cwd,
    home: options.home,
    cliAgents: options.agents,
    config,
  });
  for (const issue of registry.errors)
    ctx.io.stderr(`cadre: warning: ${options.clean.line(formatIssue(issue))}\n`);
  return { cwd, home: options.home, config, agents: registry.agents, clean: options.clean };
}
