// The work `/agents` does off the key path: each action runs with the overlay marked busy (keys are
// ignored meanwhile) and ends in a status line, its message or the error it failed with.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useState, type MutableRefObject } from 'react';
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import { checkDraft, deleteAgent, problems, saveAgent, type AgentScope } from '../../chat/agent-files.js';
import type { ChatController } from '../../chat/controller.js';
import type { Screen } from './agents-screens.js';
import { useRefState } from './keys.js';

/** What `/agents` can do, each as a busy action that ends in a status line. */
export interface AgentActions {
  busy: boolean;
  busyRef: MutableRefObject<boolean>;
  status: string;
  setStatus: (status: string) => void;
  /** Runs `work` as a busy action; its message (or error) becomes the status. */
  act: (work: () => Promise<string | void>) => void;
  /** Opens a draft in $EDITOR and reviews what comes back. */
  editDraft: (draft: string) => void;
  /** Saves a reviewed draft in `scope` and reloads the agents. */
  save: (draft: string, scope: AgentScope) => void;
  /** Opens an agent's own file in $EDITOR, then reloads and reports what its parse found. */
  editAgent: (agent: LoadedAgent) => void;
  /** Deletes an agent's file and reloads. */
  remove: (agent: LoadedAgent) => void;
  /** Reads every agent source again. */
  reload: () => void;
  /** Has the model draft an agent from a one-line description, for review. */
  draft: (description: string) => void;
}

/** The actions of the `/agents` overlay; `setScreen` moves it to the screen each ends on. */
export function useAgentActions(
  controller: ChatController,
  editFile: (file: string) => Promise<void>,
  setScreen: (screen: Screen) => void,
): AgentActions {
  const [status, setStatus] = useState('');
  const [busy, setBusy, busyRef] = useRefState(false);
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
  return {
    busy,
    busyRef,
    status,
    setStatus,
    act,
    editDraft: (draft) =>
      act(async () => {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-agent-'));
        const file = path.join(dir, 'draft.md');
        try {
          await writeFile(file, draft);
          await editFile(file);
          setScreen({ kind: 'review', draft: await readFile(file, 'utf8') });
          return 'edited';
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }),
    save: (draft, scope) =>
      act(async () => {
        const file = await saveAgent(scope, draft, dirs);
        const summary = await controller.reloadAgents();
        setScreen({ kind: 'list' });
        return `saved ${file}; ${summary}`;
      }),
    editAgent: (agent) =>
      act(async () => {
        await editFile(agent.path);
        const checked = checkDraft(agent.path, await readFile(agent.path, 'utf8'));
        const summary = await controller.reloadAgents();
        return [`edited ${agent.path}; ${summary}`, ...problems(checked)].join('\n');
      }),
    remove: (agent) =>
      act(async () => {
        await deleteAgent(agent);
        setScreen({ kind: 'list' });
        return `deleted ${agent.path}; ${await controller.reloadAgents()}`;
      }),
    reload: () => act(() => controller.reloadAgents()),
    draft: (description) => {
      setStatus('drafting with the model\u2026');
      act(async () => {
        setScreen({ kind: 'review', draft: await controller.draftAgent(description) });
        return 'review the draft before saving it';
      });
    },
  };
}
