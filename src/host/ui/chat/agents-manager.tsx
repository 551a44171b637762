// `/agents`: the agents in force with their source and path; show one; create one from a template
// or from a model's draft, reviewed (and checked by the registry's parser) before it is saved to
// the project or the user scope; edit a file in $EDITOR; delete one (built-ins are protected); and
// reload every source.
import { Box, Text } from 'ink';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useState, type MutableRefObject } from 'react';
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import {
  agentTemplate,
  checkDraft,
  checkDraftIn,
  deleteAgent,
  deleteRefusal,
  problems,
  saveAgent,
  scopeDir,
  type AgentScope,
} from '../../chat/agent-files.js';
import type { ChatController } from '../../chat/controller.js';
import { agentPage } from '../../cli/commands/agents-format.js';
import { clipLine, sanitizeForTerminal } from '../terminal-text.js';
import { useRefState, type KeyHandler } from './keys.js';
import { LineInput, useLineInput } from './line-input.js';

type Screen =
  | { kind: 'list' }
  | { kind: 'show'; agent: LoadedAgent }
  | { kind: 'ask'; purpose: 'name' | 'describe' }
  | { kind: 'review'; draft: string }
  | { kind: 'delete'; agent: LoadedAgent };

/** What the manager needs from the app. */
export interface AgentsManagerProps {
  controller: ChatController;
  /** Opens a file in $EDITOR with the terminal handed over; resolves when the editor exits. */
  editFile: (file: string) => Promise<void>;
  onClose: () => void;
  /** Where the app sends this overlay's keys. */
  keys: MutableRefObject<KeyHandler | undefined>;
  width: number;
  height: number;
}

/** The `/agents` overlay. */
export function AgentsManager(props: AgentsManagerProps) {
  const { controller, width } = props;
  const [screen, setScreen, screenRef] = useRefState<Screen>({ kind: 'list' });
  const [index, setIndex, indexRef] = useRefState(0);
  const [status, setStatus] = useState('');
  const [busy, setBusy, busyRef] = useRefState(false);
  const input = useLineInput();
  const agents = controller.runtime.registry.agents;
  const current = () => {
    const list = controller.runtime.registry.agents;
    return list[Math.min(indexRef.current, list.length - 1)];
  };
  const dirs = { cwd: controller.runtime.cwd, home: controller.home };

  const act = (work: () => Promise<string | void>) => {
    setBusy(true);
    work().then(
      (message) => {
        setBusy(false);
        if (message) setStatus(message);
      },
      (error: unknown) => {
        setBusy(false);
        setStatus(`\u2717 ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  };

  const editDraft = (draft: string) =>
    act(async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-agent-'));
      const file = path.join(dir, 'draft.md');
      try {
        await writeFile(file, draft);
        await props.editFile(file);
        setScreen({ kind: 'review', draft: await readFile(file, 'utf8') });
        return 'edited';
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

  const save = (draft: string, scope: AgentScope) =>
    act(async () => {
      const file = await saveAgent(scope, draft, dirs);
      const summary = await controller.reloadAgents();
      setScreen({ kind: 'list' });
      return `saved ${file}; ${summary}`;
    });

  props.keys.current = (text, key) => {
    if (busyRef.current) return;
    setStatus('');
    const screen = screenRef.current;
    const selected = current();
    if (screen.kind === 'ask') {
      const done = input.key(text, key);
      if (key.escape) return setScreen({ kind: 'list' });
      if (done === undefined) return;
      if (screen.purpose === 'name') {
        if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(done))
          return setStatus('a name is lowercase words joined by hyphens');
        return setScreen({ kind: 'review', draft: agentTemplate(done, '') });
      }
      setStatus('drafting with the model\u2026');
      return act(async () => {
        setScreen({ kind: 'review', draft: await controller.draftAgent(done) });
        return 'review the draft before saving it';
      });
    }
    if (screen.kind === 'review') {
      if (key.escape) return setScreen({ kind: 'list' });
      if (text === 'p' || text === 'u') return save(screen.draft, text === 'p' ? 'project' : 'user');
      if (text === 'e') return editDraft(screen.draft);
      return;
    }
    if (screen.kind === 'delete') {
      if (text === 'y')
        return act(async () => {
          await deleteAgent(screen.agent);
          setScreen({ kind: 'list' });
          return `deleted ${screen.agent.path}; ${await controller.reloadAgents()}`;
        });
      return setScreen({ kind: 'list' });
    }
    if (screen.kind === 'show') {
      if (key.escape || key.return) setScreen({ kind: 'list' });
      return;
    }
    if (key.escape) return props.onClose();
    if (key.upArrow) return setIndex(Math.max(0, indexRef.current - 1));
    if (key.downArrow) return setIndex(Math.min(agents.length - 1, indexRef.current + 1));
    if (key.return && selected) return setScreen({ kind: 'show', agent: selected });
    if (text === 'c' || text === 'g') {
      input.reset();
      return setScreen({ kind: 'ask', purpose: text === 'c' ? 'name' : 'describe' });
    }
    if (text === 'r') return act(() => controller.reloadAgents());
    if (text === 'e' && selected) {
      const refusal = deleteRefusal(selected);
      if (refusal) return setStatus(`${selected.name} has no file of its own to edit: ${refusal}`);
      return act(async () => {
        await props.editFile(selected.path);
        const draft = checkDraft(selected.path, await readFile(selected.path, 'utf8'));
        const summary = await controller.reloadAgents();
        return [`edited ${selected.path}; ${summary}`, ...problems(draft)].join('\n');
      });
    }
    if (text === 'd' && selected) {
      const refusal = deleteRefusal(selected);
      if (refusal) return setStatus(refusal);
      return setScreen({ kind: 'delete', agent: selected });
    }
  };

  const title = (text: string) => (
    <Text bold color="cyan">
      {text}
    </Text>
  );
  const foot = (text: string) => <Text dimColor>{text}</Text>;
  const statusLine = status ? (
    <Text color={status.startsWith('\u2717') ? 'red' : 'green'}>{sanitizeForTerminal(status)}</Text>
  ) : null;
  const body = (() => {
    switch (screen.kind) {
      case 'show':
        return (
          <>
            {title(`/agents \u203a ${screen.agent.name}`)}
            <Text>
              {sanitizeForTerminal(
                agentPage(screen.agent)
                  .split('\n')
                  .slice(0, props.height - 8)
                  .join('\n'),
              )}
            </Text>
            {foot('Enter or Esc: back')}
          </>
        );
      case 'ask':
        return (
          <>
            {title(
              screen.purpose === 'name'
                ? '/agents \u203a new agent from the template'
                : '/agents \u203a new agent drafted by the model',
            )}
            <Text>
              {screen.purpose === 'name'
                ? 'Name (lowercase words joined by hyphens):'
                : 'Describe the agent in one line:'}
            </Text>
            <LineInput state={input.state} width={width - 4} />
            {foot('Enter: continue  Esc: back')}
          </>
        );
      case 'review': {
        const checked = checkDraftIn(scopeDir('project', dirs), screen.draft);
        const issues = problems(checked);
        const lines = screen.draft.split('\n');
        const room = Math.max(5, props.height - 12 - issues.length);
        return (
          <>
            {title(`/agents \u203a review ${checked.name ?? 'the draft'}`)}
            <Text>{sanitizeForTerminal(lines.slice(0, room).join('\n'))}</Text>
            {lines.length > room
              ? foot(`\u2026 ${lines.length - room} more lines (e: open it in $EDITOR)`)
              : null}
            {issues.length === 0 ? (
              <Text color="green">valid</Text>
            ) : (
              issues.map((issue, i) => (
                <Text key={i} color={issue.startsWith('error') ? 'red' : 'yellow'} wrap="truncate">
                  {clipLine(issue, width - 2)}
                </Text>
              ))
            )}
            {foot(
              'p: save to the project (.cadre/agents)  u: save for you (~/.cadre/agents)  e: edit in $EDITOR  Esc: discard',
            )}
          </>
        );
      }
      case 'delete':
        return (
          <>
            {title('/agents \u203a delete')}
            <Text color="yellow">
              {sanitizeForTerminal(
                `Delete ${screen.agent.name} (${screen.agent.path})? y: delete, any other key: keep`,
              )}
            </Text>
          </>
        );
      case 'list': {
        const room = Math.max(3, props.height - 8);
        const start = Math.max(0, Math.min(index - Math.floor(room / 2), agents.length - room));
        return (
          <>
            {title(`/agents (${agents.length})`)}
            {agents.slice(start, start + room).map((a, i) => (
              <Text
                key={a.name}
                wrap="truncate"
                {...(start + i === index ? { color: 'cyan', bold: true } : {})}
              >
                {clipLine(
                  `${start + i === index ? '\u276f' : ' '} ${a.name.padEnd(18)} ${a.source.padEnd(14)} ${a.path}`,
                  width - 2,
                )}
              </Text>
            ))}
            {foot(
              'Enter: show  c: create from template  g: generate with the model  e: edit in $EDITOR  d: delete  r: reload  Esc: close',
            )}
          </>
        );
      }
    }
  })();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      {body}
      {busy ? <Text dimColor>{'working\u2026'}</Text> : statusLine}
    </Box>
  );
}
