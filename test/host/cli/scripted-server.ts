// A fake Messages API scripted per task for CLI tests: each prompt carries a `[[tag]]`, and the
// script of that tag answers turn by turn (turn 0 is the first reply after the tagged message, so a
// resumed run, whose new prompt carries a new tag, starts its own script). Unscripted turns end
// the run with "done".
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  type FakeAnthropic,
  type RecordedRequest,
  type RequestBlock,
  type Step,
} from '../../support/fake-anthropic.js';

/** One reply of a script: the request, its tool results, and the step to answer with. */
export type ScriptTurn = (req: RecordedRequest, results: RequestBlock[]) => Step;

/** A running scripted server. */
export interface ScriptedServer {
  server: FakeAnthropic;
  /** Scripts by tag. */
  scripts: Map<string, ScriptTurn[]>;
  /** Request bodies of the requests tagged `tag`, as JSON text. */
  bodies(tag: string): string[];
  env: Record<string, string>;
}

const TAG = /\[\[([a-z0-9-]+)\]\]/;

function textOf(content: string | RequestBlock[]): string {
  return typeof content === 'string'
    ? content
    : content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

/** The tag of the latest tagged user message and how many assistant turns follow it. */
export function tagOf(req: RecordedRequest): { tag: string; turn: number } | undefined {
  const messages = req.body.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    const tag = TAG.exec(textOf(m.content))?.[1];
    if (tag !== undefined) {
      const turn = messages.slice(i + 1).filter((x) => x.role === 'assistant').length;
      return { tag, turn };
    }
  }
  return undefined;
}

/** Starts the server. */
export async function startScripted(): Promise<ScriptedServer> {
  const scripts = new Map<string, ScriptTurn[]>();
  const server = await startFakeAnthropic({
    responder: (req) => {
      const at = tagOf(req);
      const turn = at ? scripts.get(at.tag)?.[at.turn] : undefined;
      return turn ? turn(req, toolResults(req.body)) : textReply('done');
    },
  });
  return {
    server,
    scripts,
    bodies: (tag) => server.requests.filter((r) => tagOf(r)?.tag === tag).map((r) => JSON.stringify(r.body)),
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
  };
}

/** The text of a tool result block. */
export function resultText(block: RequestBlock | undefined): string {
  const content = block?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? textOf(content as RequestBlock[]) : '';
}
