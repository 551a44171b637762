// Schemas of what a worker may send with each capability call. Worker input is untrusted: every
// call is parsed here before the policy or an effect sees it.
import * as z from 'zod';
import { TaskInput } from '../../shared/task.js';
import { TodoItem } from '../../shared/tools.js';

const path = z.string().min(1).max(4096);
const globPattern = z.string().min(1).max(1000);
const globLimit = z.number().int().positive().max(100_000);
/** Largest MCP tool input a worker may send (JSON characters). */
const MCP_INPUT_MAX_CHARS = 1024 * 1024;

/** Request schema per capability. */
export const CapabilityRequests = {
  'fs.read': z.strictObject({
    path,
    offset: z.number().int().positive().optional(),
    limit: z.number().int().positive().optional(),
  }),
  'fs.readMany': z
    .strictObject({
      paths: z.array(path).max(5000),
      maxBytesPerFile: z.number().int().positive().max(10_485_760).optional(),
      packed: z.boolean().optional(),
      glob: z
        .strictObject({ pattern: globPattern, path: path.optional(), limit: globLimit.optional() })
        .optional(),
    })
    .refine((r) => r.glob === undefined || r.paths.length === 0, {
      message: 'pass either paths or glob, not both',
      path: ['paths'],
    }),
  'fs.glob': z.strictObject({
    pattern: globPattern,
    path: path.optional(),
    limit: globLimit.optional(),
    sort: z.enum(['mtime', 'path']).optional(),
  }),
  'fs.stat': z.strictObject({ path }),
  'fs.list': z.strictObject({ path, ignore: z.array(z.string().max(1000)).max(100).optional() }),
  'fs.write': z.strictObject({
    path,
    content: z.string().max(50 * 1024 * 1024),
    expectedMtimeMs: z.number().optional(),
  }),
  'exec.run': z.strictObject({
    command: z.string().min(1).max(100_000),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
    description: z.string().max(1000).optional(),
  }),
  'agents.task': TaskInput,
  'agents.output': z.strictObject({
    agentId: z.string().min(1).max(200),
    timeoutMs: z.number().int().min(0).max(3_600_000).optional(),
  }),
  'agents.stop': z.strictObject({ agentId: z.string().min(1).max(200) }),
  'todos.read': z.strictObject({}),
  'todos.write': z.strictObject({ todos: z.array(TodoItem).max(200) }),
  'web.fetch': z.strictObject({ url: z.string().min(1).max(2000) }),
  'mcp.call': z.strictObject({
    tool: z
      .string()
      .max(200)
      .regex(/^mcp__[A-Za-z0-9_-]+$/, 'must be an MCP tool name such as mcp__github__create_issue'),
    input: z
      .record(z.string(), z.unknown())
      .refine((input) => JSON.stringify(input).length <= MCP_INPUT_MAX_CHARS, {
        message: `must be at most ${MCP_INPUT_MAX_CHARS} characters as JSON`,
      }),
  }),
} as const;
