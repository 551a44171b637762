// The agent registry's public surface: parse one definition, resolve tools, load every source.
export { loadRegistry } from './load-registry.js';
export { formatIssue } from './format-issue.js';
