// Where `cadre chat --resume` finds the last session: one JSON line per chat session (its main
// agent's id and transcript), appended when the session's first turn starts. It lives with the
// project's other records (`~/.cadre/projects/<slug>/chat-sessions.jsonl`), out of every agent's
// reach: an agent that could edit it could point the next `--resume` at another run.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';

/** One chat session. */
export const ChatSessionRecord = z.object({
  at: z.number(),
  agentId: z.string().min(1),
  agentType: z.string().min(1),
  transcriptPath: z.string().min(1),
});
/** One chat session. */
export type ChatSessionRecord = z.infer<typeof ChatSessionRecord>;

/** The index file of a project's records directory (`RecordsLocation.dir`). */
export function sessionsIndexPath(recordsDir: string): string {
  return path.join(recordsDir, 'chat-sessions.jsonl');
}

/** Appends a session. */
export async function recordSession(file: string, record: ChatSessionRecord): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify(record)}\n`);
}

/** The last session recorded (of `agentType`, when given); bad lines are skipped. */
export async function lastSession(file: string, agentType?: string): Promise<ChatSessionRecord | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const records = text
    .split('\n')
    .map((line) => {
      try {
        return ChatSessionRecord.safeParse(JSON.parse(line));
      } catch {
        return undefined;
      }
    })
    .flatMap((r) => (r?.success ? [r.data] : []));
  return records.filter((r) => agentType === undefined || r.agentType === agentType).at(-1);
}
