// TaskInput, TaskOutput and TaskStatus: what a caller asks of the runtime and what it gets back.
import * as z from 'zod';
import { WireError } from './errors.js';
import { PERMISSION_MODES } from './permission-modes.js';
import { RANGES } from './ranges.js';
import { Usage } from './usage.js';

/** The seven terminal statuses; every run ends with exactly one. */
export const TaskStatus = z.enum([
  'completed',
  'failed',
  'timeout',
  'crashed',
  'cancelled',
  'budget_exceeded',
  'max_turns',
]);
/** A terminal status. */
export type TaskStatus = z.infer<typeof TaskStatus>;

/** The permission modes of DESIGN.md. */
export const PermissionMode = z.enum(PERMISSION_MODES);
/** A permission mode. */
export type PermissionMode = z.infer<typeof PermissionMode>;

export { Usage, addUsage, emptyUsage, totalTokens } from './usage.js';

/** A request for one agent run. `timeout` is in seconds. */
export const TaskInput = z.strictObject({
  subagent_type: z.string().min(1),
  prompt: z.string().min(1),
  description: z.string().optional(),
  model: z.string().min(1).optional(),
  timeout: z.number().positive().max(86_400).optional(),
  max_turns: z.number().int().positive().max(10_000).optional(),
  token_budget: z.number().int().positive().max(RANGES.tokenBudget.max).optional(),
  permission_mode: PermissionMode.optional(),
  run_in_background: z.boolean().optional(),
  resume: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
});
/** A request for one agent run. */
export type TaskInput = z.infer<typeof TaskInput>;

/** Why a run crashed or failed, in one word a script can branch on. */
export const EndReason = z.enum([
  'out_of_memory',
  'worker_exit',
  'worker_error',
  'idle_timeout',
  'model_error',
  'refusal',
  'tree_budget',
  'parent_cancelled',
  'user_cancelled',
  'reply_too_large',
  'host_crash',
]);
/** A reason word. */
export type EndReason = z.infer<typeof EndReason>;

/** The one result of one run. */
export const TaskOutput = z.object({
  agentId: z.string(),
  agentType: z.string(),
  parentId: z.string().optional(),
  status: TaskStatus,
  result: z.string(),
  error: WireError.extend({ reason: EndReason.optional() }).optional(),
  usage: Usage,
  model: z.string(),
  durationMs: z.number().min(0),
  turns: z.number().int().min(0),
  toolCalls: z.number().int().min(0),
  transcriptPath: z.string(),
});
/** The one result of one run. */
export type TaskOutput = z.infer<typeof TaskOutput>;
