// The library's public surface: the runtime facade and the contracts callers see. Every type a
// public signature mentions is exported here (test/api/public-types.test.ts keeps it so).
export {
  createRuntime,
  type Runtime,
  type RuntimeOptions,
  type RunOptions,
  type Session,
  type SessionOptions,
  type TaskHandle,
  type TaskOptions,
} from './host/runtime.js';
export type { ModelEnv } from './host/agents/model-resolve.js';
export type {
  CadreConfig,
  McpServerEntry,
  SandboxSettings,
  WebFetchSettings,
  WebSearchSettings,
} from './host/config/merge.js';
export type { IsolationMode, ModelAliases, ProviderConfig, SandboxMode } from './host/config/schema.js';
export type { McpServerConfig } from './shared/mcp-config.js';
export type { TrustPrompt, TrustRequest } from './host/capabilities/mcp/trust-gate.js';
export type { WarningSink } from './host/capabilities/sandbox/gate.js';
export type { RecordsLocation } from './host/records/location.js';
export {
  terminalText,
  terminalCleaner,
  type TerminalCleaner,
  type TerminalTextOptions,
} from './host/terminal-text.js';
export type { BatchOptions, BatchResult } from './host/batch/run-batch.js';
export type { BatchTask } from './host/batch/task-file.js';
export {
  ApprovalBroker,
  callbackResolver,
  nonInteractiveResolver,
  type ApprovalBrokerOptions,
  type ApprovalDecider,
  type ApprovalInput,
  type ApprovalNotice,
  type ApprovalRequest,
  type ApprovalResolver,
  type ApprovalResult,
  type Resolver,
  type ResolverAnswer,
} from './host/approvals/index.js';
export { TaskInput, TaskOutput, TaskStatus, PermissionMode, Usage } from './shared/task.js';
export { AgentEvent } from './shared/events.js';
export {
  AgentDefinition,
  AgentSource,
  type AgentFrontmatter,
  type AgentInput,
  type LoadedAgent,
  type NotInEffect,
  type RegistryIssue,
  type RegistryResult,
} from './shared/agent-definition.js';
export { CadreError, isCadreError, ErrorCode, type ErrorFault } from './shared/errors.js';
