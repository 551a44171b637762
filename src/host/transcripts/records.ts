// The lines of a transcript besides the run's events: the header that opens each segment (a run,
// or a resume of it) and the status line that closes it. Also the file naming rule.
import path from 'node:path';
import { CadreError } from '../../shared/errors.js';
import type { TaskOutput, TaskStatus } from '../../shared/task.js';

/** Bumped when the line format changes incompatibly. */
export const TRANSCRIPT_VERSION = 1;

/** Opens a segment: the first line of a transcript, and the first line after each resume. */
export interface TranscriptHeader {
  type: 'header';
  version: number;
  agentId: string;
  /** Epoch ms. */
  at: number;
  /** True when this segment continues an earlier run (resume). */
  resumed: boolean;
  [key: string]: unknown;
}

/** Closes a segment with the run's one terminal status. */
export interface TranscriptStatusLine {
  type: 'status';
  at: number;
  status: TaskStatus;
  output: unknown;
}

/** What `close` takes: the run's TaskOutput, or a status with any output. */
export type TranscriptEnd = TaskOutput | { status: TaskStatus; output?: unknown };

const AGENT_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;

/** Throws `invalid_input` unless `agentId` is safe as a file name (no separators, no `..`). */
function checkAgentId(agentId: string): void {
  if (typeof agentId !== 'string' || !AGENT_ID.test(agentId) || agentId.includes('..')) {
    throw new CadreError('invalid_input', `"${String(agentId).slice(0, 80)}" is not a valid agent id`);
  }
}

/** `<dir>/<agentId>.jsonl`. */
export function transcriptPath(dir: string, agentId: string): string {
  checkAgentId(agentId);
  return path.join(dir, `${agentId}.jsonl`);
}
