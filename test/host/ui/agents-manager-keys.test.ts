// What each key does on each screen of /agents, driven directly with recorded actions (the whole
// overlay is driven through Ink in chat-agents.test.tsx).
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import type { AgentActions } from '../../../src/host/ui/chat/agent-actions.js';
import {
  isAgentName,
  managerKey,
  type ManagerKeyContext,
} from '../../../src/host/ui/chat/agents-manager-keys.js';
import type { Screen } from '../../../src/host/ui/chat/agents-screens.js';
import type { LoadedAgent } from '../../../src/shared/agent-definition.js';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
} as Key;

const agent = (name: string, source: LoadedAgent['source']) =>
  ({ name, source, path: `/p/.cadre/agents/${name}.md` }) as LoadedAgent;

/** A context over `screen` that records what the handlers did. */
function harness(screen: Screen, opts: { selected?: LoadedAgent; index?: number; typed?: string } = {}) {
  const log: string[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) =>
      void log.push(
        `${name} ${args.map((a) => (typeof a === 'object' ? JSON.stringify(a) : String(a))).join(' ')}`.trim(),
      );
  const actions = {
    setStatus: record('status'),
    editDraft: record('editDraft'),
    save: record('save'),
    editAgent: (a: LoadedAgent) => log.push(`editAgent ${a.name}`),
    remove: (a: LoadedAgent) => log.push(`remove ${a.name}`),
    reload: record('reload'),
    draft: record('draft'),
  } as unknown as AgentActions;
  const ctx: ManagerKeyContext = {
    screen,
    selected: opts.selected,
    index: opts.index ?? 0,
    count: 3,
    input: { key: () => opts.typed, reset: () => void log.push('reset') },
    actions,
    setScreen: (s) => void log.push(`screen ${s.kind}${'purpose' in s ? ` ${s.purpose}` : ''}`),
    setIndex: (i) => void log.push(`index ${i}`),
    onClose: () => void log.push('close'),
  };
  return { ctx, log };
}

describe('the /agents keys', () => {
  it('the list: arrows move within bounds, Enter shows, c and g ask, r reloads, Esc closes', () => {
    const user = agent('mine', 'project');
    const cases: [string, Partial<Key>, number, string[]][] = [
      ['', { downArrow: true }, 1, ['index 2']],
      ['', { downArrow: true }, 2, ['index 2']],
      ['', { upArrow: true }, 0, ['index 0']],
      ['', { return: true }, 0, ['screen show']],
      ['c', {}, 0, ['reset', 'screen ask name']],
      ['g', {}, 0, ['reset', 'screen ask describe']],
      ['r', {}, 0, ['reload']],
      ['e', {}, 0, ['editAgent mine']],
      ['d', {}, 0, ['screen delete']],
      ['', { escape: true }, 0, ['close']],
    ];
    for (const [text, key, index, want] of cases) {
      const { ctx, log } = harness({ kind: 'list' }, { selected: user, index });
      managerKey(ctx, text, { ...NO_KEY, ...key });
      expect(log, `${text} ${JSON.stringify(key)}`).toEqual(want);
    }
  });

  it('a built-in agent is neither edited nor deleted: the reason is the status', () => {
    for (const text of ['e', 'd']) {
      const { ctx, log } = harness({ kind: 'list' }, { selected: agent('explore', 'builtin') });
      managerKey(ctx, text, NO_KEY);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatch(/^status .*explore is built in and cannot be deleted/);
    }
  });

  it('asking for a name: a valid one goes to review, a bad one is refused, a description is drafted', () => {
    const ok = harness({ kind: 'ask', purpose: 'name' }, { typed: 'my-agent' });
    managerKey(ok.ctx, '\r', { ...NO_KEY, return: true });
    expect(ok.log).toEqual(['screen review']);
    const bad = harness({ kind: 'ask', purpose: 'name' }, { typed: 'My Agent' });
    managerKey(bad.ctx, '\r', { ...NO_KEY, return: true });
    expect(bad.log).toEqual(['status a name is lowercase words joined by hyphens']);
    const described = harness({ kind: 'ask', purpose: 'describe' }, { typed: 'reviews SQL' });
    managerKey(described.ctx, '\r', { ...NO_KEY, return: true });
    expect(described.log).toEqual(['draft reviews SQL']);
    const typing = harness({ kind: 'ask', purpose: 'name' });
    managerKey(typing.ctx, 'x', NO_KEY);
    expect(typing.log).toEqual([]);
  });

  it('review saves to either scope or edits; delete needs y; show goes back on Enter', () => {
    const draft = '---\nname: x\n---';
    const review = (text: string) => {
      const h = harness({ kind: 'review', draft });
      managerKey(h.ctx, text, NO_KEY);
      return h.log;
    };
    expect(review('p')).toEqual([`save ${draft} project`]);
    expect(review('u')).toEqual([`save ${draft} user`]);
    expect(review('e')).toEqual([`editDraft ${draft}`]);
    expect(review('z')).toEqual([]);
    const doomed = agent('old', 'project');
    const yes = harness({ kind: 'delete', agent: doomed });
    managerKey(yes.ctx, 'y', NO_KEY);
    expect(yes.log).toEqual(['remove old']);
    const no = harness({ kind: 'delete', agent: doomed });
    managerKey(no.ctx, 'n', NO_KEY);
    expect(no.log).toEqual(['screen list']);
    const shown = harness({ kind: 'show', agent: doomed });
    managerKey(shown.ctx, '\r', { ...NO_KEY, return: true });
    expect(shown.log).toEqual(['screen list']);
  });

  it('agent names are lowercase words joined by hyphens', () => {
    expect(['a', 'code-reviewer', 'v2-agent'].every(isAgentName)).toBe(true);
    expect(['', 'A', 'a--b', '-a', 'a-', 'a b', 'a_b'].some(isAgentName)).toBe(false);
  });
});
