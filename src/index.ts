// The library's public surface: the runtime facade and the contracts callers see.
export {
  createRuntime,
  type Runtime,
  type RuntimeOptions,
  type Session,
  type SessionOptions,
  type TaskHandle,
  type TaskOptions,
} from './host/runtime.js';
export type { RecordsLocation } from './host/records/location.js';
export { terminalText, terminalCleaner, type TerminalCleaner } from './host/terminal-text.js';
export type { BatchOptions, BatchResult } from './host/batch/run-batch.js';
export type { BatchTask } from './host/batch/task-file.js';
export {
  callbackResolver,
  nonInteractiveResolver,
  type ApprovalRequest,
  type Resolver,
} from './host/approvals/index.js';
export { TaskInput, TaskOutput, TaskStatus, PermissionMode, Usage } from './shared/task.js';
export { AgentEvent } from './shared/events.js';
export {
  AgentDefinition,
  AgentSource,
  type LoadedAgent,
  type RegistryResult,
} from './shared/agent-definition.js';
export { CadreError, isCadreError, ErrorCode } from './shared/errors.js';
