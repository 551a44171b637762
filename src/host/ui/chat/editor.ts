// Hands the terminal to the person's editor ($VISUAL, $EDITOR, else vi) for one file and takes it
// back: raw mode off while the editor runs, on again after (the app's own input resumes it).
import { spawn } from 'node:child_process';

/** The input side whose raw mode the editor needs off. */
export interface EditorTerminal {
  setRawMode?(mode: boolean): unknown;
  isTTY?: boolean;
}

/** The editor command for an environment. */
function editorCommand(env: NodeJS.ProcessEnv): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
}

/**
 * Runs the editor on `file` with the terminal inherited and resolves with its exit code. The
 * command goes through `sh -c` so an EDITOR with arguments (`code -w`) works; the file is passed
 * as an argument, never spliced into the command.
 */
export function runEditor(
  file: string,
  terminal: EditorTerminal,
  env: NodeJS.ProcessEnv,
): Promise<number | null> {
  terminal.setRawMode?.(false);
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${editorCommand(env)} "$1"`, 'cadre-editor', file], {
      stdio: 'inherit',
      env,
    });
    child.once('error', (error) => {
      terminal.setRawMode?.(true);
      reject(error);
    });
    child.once('exit', (code) => {
      terminal.setRawMode?.(true);
      resolve(code);
    });
  });
}
