// The chat's entry in its own bundle (dist/host/ui/chat-ui.mjs), loaded only by `cadre chat`: Ink
// and React never slow the other commands. Mounts the app, hands the terminal to $EDITOR when asked
// (unmounting and mounting again, so Ink leaves and re-enters raw mode cleanly and the scrollback
// is not printed twice), and resolves when the person leaves.
import { render, type Instance } from 'ink';
import type { ChatController } from '../../chat/controller.js';
import { ChatApp } from './app.js';
import { runEditor } from './editor.js';

/** The terminal the chat runs on. */
export interface ChatTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** Runs the chat until the person leaves (/exit, Ctrl+C twice, SIGINT/SIGTERM/SIGHUP). */
export function runChat(controller: ChatController, terminal: ChatTerminal): Promise<void> {
  let printed = 0;
  let history: readonly string[] = [];
  let instance: Instance | undefined;
  return new Promise<void>((resolve) => {
    let done = false;
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const exit = () => {
      if (done) return;
      done = true;
      for (const sig of signals) process.off(sig, exit);
      // The live part (tree, prompt, composer) goes; the conversation stays in the scrollback.
      instance?.clear();
      instance?.unmount();
      resolve();
    };
    for (const sig of signals) process.on(sig, exit);
    const mount = () => {
      instance = render(
        <ChatApp
          controller={controller}
          editFile={editFile}
          onExit={exit}
          printed={printed}
          history={history}
          onHistory={(h) => (history = h)}
        />,
        {
          stdin: terminal.stdin,
          stdout: terminal.stdout,
          stderr: terminal.stderr,
          exitOnCtrlC: false,
          patchConsole: false,
          maxFps: 60,
        },
      );
    };
    const editFile = async (file: string) => {
      controller.store.flush();
      printed = controller.store.getState().items.length;
      instance?.clear();
      instance?.unmount();
      try {
        await runEditor(file, terminal.stdin, terminal.env);
      } finally {
        if (!done) mount();
      }
    };
    mount();
  });
}
