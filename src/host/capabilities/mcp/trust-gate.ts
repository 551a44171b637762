// The runtime's side of trust: which of a run's project servers may start. Trusted ones pass; for
// the others an interactive front end is asked once (and a yes is recorded), and without one they
// are refused with the command that trusts them. Concurrent runs asking about the same servers
// share one question.
import type { McpSource } from './server-spec.js';
import { describeConfig } from './server-spec.js';
import { trustId, type TrustStore } from './trust.js';

/** What a trust prompt shows: the servers, where each is configured and what it runs. */
export interface TrustRequest {
  projectDir: string;
  servers: { id: string; origin: string; runs: string }[];
}

/** Asks a person whether to trust servers; true records the trust. */
export type TrustPrompt = (request: TrustRequest) => boolean | Promise<boolean>;

/** The command a person runs to trust a project's servers. */
export function trustCommand(projectDir: string, ids: readonly string[]): string {
  const quote = (s: string) => (/^[A-Za-z0-9_./@:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `cadre mcp trust --cwd ${quote(projectDir)}${ids.length > 0 ? ` ${ids.map(quote).join(' ')}` : ''}`;
}

/** The sources a run may start, and a notice for those it may not. */
export interface TrustVerdict {
  trusted: McpSource[];
  notice?: string;
}

/** Trust decisions for one runtime. */
export class TrustGate {
  private readonly declined = new Set<string>();
  private asking: Promise<unknown> = Promise.resolve();
  private opened: Promise<TrustStore> | undefined;
  private store!: TrustStore;

  /** `open` reads the trust records, the first time a project server is checked. */
  constructor(
    private readonly open: () => Promise<TrustStore>,
    private readonly projectDir: string,
    private readonly prompt: TrustPrompt | undefined,
  ) {}

  /** Splits `sources` into the ones that may start and a notice about the rest. */
  async check(sources: readonly McpSource[]): Promise<TrustVerdict> {
    if (sources.every((s) => s.scope === 'user')) return { trusted: [...sources] };
    this.store = await (this.opened ??= this.open());
    let untrusted = sources.filter((s) => !this.store.isTrusted(this.projectDir, s));
    if (untrusted.length === 0) return { trusted: [...sources] };
    if (this.prompt && untrusted.some((s) => !this.declined.has(trustId(s)))) {
      // One question at a time: a run that waited may find its servers trusted by the answer to another.
      const turn = this.asking.then(() => this.ask(untrusted));
      this.asking = turn.catch(() => undefined);
      await turn;
      untrusted = untrusted.filter((s) => !this.store.isTrusted(this.projectDir, s));
    }
    const trusted = sources.filter((s) => !untrusted.includes(s));
    if (untrusted.length === 0) return { trusted };
    const ids = untrusted.map(trustId);
    const origins = [...new Set(untrusted.map((s) => s.origin))].join(', ');
    const many = ids.length > 1;
    const notice =
      `MCP server${many ? 's' : ''} ${ids.join(', ')} (configured by this project in ${origins}) ` +
      `${many ? 'are' : 'is'} not trusted, so ${many ? 'they were' : 'it was'} not started and ` +
      `${many ? 'their' : 'its'} tools are not available. To trust ${many ? 'them' : 'it'}, run: ` +
      trustCommand(this.projectDir, ids);
    return { trusted, notice };
  }

  private async ask(sources: readonly McpSource[]): Promise<void> {
    const pending = sources.filter(
      (s) => !this.store.isTrusted(this.projectDir, s) && !this.declined.has(trustId(s)),
    );
    if (pending.length === 0 || !this.prompt) return;
    const yes = await this.prompt({
      projectDir: this.projectDir,
      servers: pending.map((s) => ({ id: trustId(s), origin: s.origin, runs: describeConfig(s.config) })),
    });
    if (yes) await this.store.trust(this.projectDir, pending);
    else for (const s of pending) this.declined.add(trustId(s));
  }
}
