// The agent registry's public surface: parse one definition, resolve tools, load every source.
export {
  parseAgentFile,
  parseAgentEntry,
  MAX_AGENT_FILE_BYTES,
  type ParsedAgent,
  type ParseOptions,
} from './parse-agent.js';
export {
  resolveTools,
  toolEntries,
  type ToolFields,
  type ToolResolution,
  type ToolIssue,
} from './resolve-tools.js';
export { loadRegistry, BUILTIN_AGENTS_DIR, SOURCE_ORDER, type LoadRegistryOptions } from './load-registry.js';
export { formatIssue, sortByLine } from './format-issue.js';
export { validateAgentPaths } from './validate-files.js';
