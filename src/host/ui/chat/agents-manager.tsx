// `/agents`: the agents in force with their source and path; show one; create one from a template
// or from a model's draft, reviewed (and checked by the registry's parser) before it is saved to
// the project or the user scope; edit a file in $EDITOR; delete one (built-ins are protected); and
// reload every source.
import { Box, Text } from 'ink';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useState, type MutableRefObject } from 'react';
import {
  agentTemplate,
  checkDraft,
  deleteAgent,
  deleteRefusal,
  problems,
  saveAgent,
  scopeDir,
  type AgentScope,
} from '../../chat/agent-files.js';
import type { ChatController } from '../../chat/controller.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { useRefState, type KeyHandler } from './keys.js';
import { AgentsScreen, type Screen } from './agents-screens.js';
import { useLineInput } from './line-input.js';

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

  const statusLine = status ? (
    <Text color={status.startsWith('\u2717') ? 'red' : 'green'}>{sanitizeForTerminal(status)}</Text>
  ) : null;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <AgentsScreen
        screen={screen}
        agents={agents}
        index={index}
        input={input.state}
        projectAgents={scopeDir('project', dirs)}
        width={width}
        height={props.height}
      />
      {busy ? <Text dimColor>{'working\u2026'}</Text> : statusLine}
    </Box>
  );
}
