// What the audit log says about a call's arguments: a short, secret-free summary per capability
// (a write logs its path and size, not its content; a command is cut short and obvious secrets in it
// are masked).

const SECRET_PATTERNS: readonly RegExp[] = [
  /((?:^|\s)--?(?:password|passwd|token|secret|api[-_]?key|auth|access[-_]?key)(?:=|\s+))("[^"]*"|'[^']*'|\S+)/gi,
  /(authorization:\s*(?:bearer|basic|token)?\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi,
  /(\b[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY)[A-Z0-9_]*=)("[^"]*"|'[^']*'|\S+)/g,
  /(\/\/[^/\s:@]+:)([^@\s/]+)(?=@)/g,
];

/** Masks values that look like credentials in a command line. */
export function redactSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((out, re) => out.replace(re, '$1***'), text);
}

/** `text` cut to `max` characters with a note of its length; undefined for a non-string. */
export function cut(text: unknown, max: number): string | undefined {
  if (typeof text !== 'string') return undefined;
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** A URL as the audit log keeps it: scheme, host and path (a query or fragment may hold a token). */
export function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`.slice(0, 300);
  } catch {
    return cut(value, 100);
  }
}

/** `obj` without its undefined fields. */
function defined(obj: Record<string, unknown>): Record<string, unknown> {
  // A loop, not entries/filter/fromEntries: every audit line passes here, twice.
  const out: Record<string, unknown> = {};
  for (const key in obj) if (obj[key] !== undefined) out[key] = obj[key];
  return out;
}

/** A short, secret-free summary of a capability request. Never throws. */
export function summarizeArgs(capability: string, args: unknown): Record<string, unknown> {
  // A caller that already summarised passes a string: keep it short and masked.
  if (typeof args === 'string') return { summary: cut(redactSecrets(args), 300) };
  if (typeof args !== 'object' || args === null) return Array.isArray(args) ? { count: args.length } : {};
  const a = args as Record<string, unknown>;
  switch (capability) {
    case 'fs.read':
      return defined({ path: cut(a.path, 300), offset: a.offset, limit: a.limit });
    case 'fs.readMany': {
      const paths = Array.isArray(a.paths) ? a.paths : [];
      return { count: paths.length, paths: paths.slice(0, 5).map((p) => cut(p, 300)) };
    }
    case 'fs.glob':
      return defined({ pattern: cut(a.pattern, 200), path: cut(a.path, 300) });
    case 'fs.stat':
    case 'fs.list':
      return defined({ path: cut(a.path, 300) });
    case 'fs.write':
      return defined({
        path: cut(a.path, 300),
        bytes: typeof a.content === 'string' ? Buffer.byteLength(a.content) : undefined,
      });
    case 'exec.run':
      return defined({
        command: typeof a.command === 'string' ? cut(redactSecrets(a.command), 300) : undefined,
        timeoutMs: a.timeoutMs,
      });
    case 'web.fetch':
      return defined({ url: safeUrl(a.url) });
    case 'model.request':
      return defined({ method: cut(a.method, 10), url: safeUrl(a.url) });
    case 'mcp.call':
      return defined({
        tool: cut(a.tool, 200),
        inputKeys:
          typeof a.input === 'object' && a.input !== null ? Object.keys(a.input).slice(0, 20) : undefined,
      });
    case 'agents.task':
      return defined({
        subagent_type: cut(a.subagent_type, 100),
        description: cut(a.description, 200),
        run_in_background: a.run_in_background,
        resume: cut(a.resume, 100),
      });
    case 'agents.output':
    case 'agents.stop':
      return defined({ agentId: cut(a.agentId, 100) });
    case 'todos.write':
      return { count: Array.isArray(a.todos) ? a.todos.length : 0 };
    default:
      return { keys: Object.keys(a).slice(0, 20) };
  }
}
