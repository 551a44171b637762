// The host modules bench/mcp.ts measures, loaded from one build: the source (run through tsx), or
// a copy of dist/ inside this checkout (`--build label=dir`, e.g. .scratch/before/dist), so an old
// and a new build are measured side by side in one process, against the same server and load.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Approvals from '../../src/host/approvals/index.js';
import type * as Audit from '../../src/host/capabilities/audit.js';
import type * as Gateway from '../../src/host/capabilities/gateway.js';
import type * as CallHandler from '../../src/host/capabilities/mcp/call-handler.js';
import type * as Runtime from '../../src/host/capabilities/mcp/mcp-runtime.js';
import type * as Gate from '../../src/host/capabilities/sandbox/gate.js';
import type * as EndpointModule from '../../src/shared/endpoint.js';

/** What the benchmark takes from a build. */
export interface McpBuild {
  label: string;
  ApprovalBroker: typeof Approvals.ApprovalBroker;
  nonInteractiveResolver: typeof Approvals.nonInteractiveResolver;
  createAuditLog: typeof Audit.createAuditLog;
  exposeGateway: typeof Gateway.exposeGateway;
  mcpCallHandler: typeof CallHandler.mcpCallHandler;
  McpRuntime: typeof Runtime.McpRuntime;
  SandboxGate: typeof Gate.SandboxGate;
  portEndpoint: typeof EndpointModule.portEndpoint;
}

/** Loads `label`'s modules from `dist` (a compiled build), or from the source when `dist` is undefined. */
export async function loadMcpBuild(label: string, dist: string | undefined): Promise<McpBuild> {
  const load = async <T>(module: string): Promise<T> =>
    (await import(
      dist === undefined ? `../../src/${module}.js` : pathToFileURL(path.resolve(dist, `${module}.js`)).href
    )) as T;
  const approvals = await load<typeof Approvals>('host/approvals/index');
  return {
    label,
    ApprovalBroker: approvals.ApprovalBroker,
    nonInteractiveResolver: approvals.nonInteractiveResolver,
    createAuditLog: (await load<typeof Audit>('host/capabilities/audit')).createAuditLog,
    exposeGateway: (await load<typeof Gateway>('host/capabilities/gateway')).exposeGateway,
    mcpCallHandler: (await load<typeof CallHandler>('host/capabilities/mcp/call-handler')).mcpCallHandler,
    McpRuntime: (await load<typeof Runtime>('host/capabilities/mcp/mcp-runtime')).McpRuntime,
    SandboxGate: (await load<typeof Gate>('host/capabilities/sandbox/gate')).SandboxGate,
    portEndpoint: (await load<typeof EndpointModule>('shared/endpoint')).portEndpoint,
  };
}

/** The builds named on the command line (`--build label=dir`, repeatable), or the source alone. */
export function buildsFromArgs(argv: readonly string[]): { label: string; dist: string | undefined }[] {
  const builds = argv.flatMap((arg, i) => {
    if (arg !== '--build') return [];
    const spec = argv[i + 1] ?? '';
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new Error(`--build wants label=dir (a copy of dist/), got "${spec}"`);
    return [{ label: spec.slice(0, eq), dist: spec.slice(eq + 1) }];
  });
  return builds.length > 0 ? builds : [{ label: 'current', dist: undefined }];
}
