// The one file that imports @modelcontextprotocol/sdk, and only its client side. It is bundled on
// its own (dist/host-bundle/mcp-adapter.cjs) and loaded by adapter-loader.ts when the first server
// starts, so a run without MCP never loads the SDK. Everything else in cadre sees MCP through
// `McpSession`: sessions over a server process cadre spawned itself (so it owns the process tree),
// Streamable HTTP or legacy SSE; SDK errors come out as CadreErrors with a `kind` detail.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JsonSchemaValidatorResult,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { CadreError, isCadreError } from '../../../shared/errors.js';
import type { McpRawResult, McpSession, McpToolInfo, SessionHooks, SessionTarget } from './session.js';
import type { ServerProcess } from './server-process.js';

const ACCEPT_ANY: jsonSchemaValidator = {
  getValidator:
    <T>() =>
    (input: unknown): JsonSchemaValidatorResult<T> => ({
      valid: true,
      data: input as T,
      errorMessage: undefined,
    }),
};

/** Largest message a stdio server may send (a line longer than this ends the server). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Most tools read from one server (pages are followed up to this). */
const MAX_TOOLS = 2000;

/** A Transport over a server process cadre started: newline-delimited JSON-RPC on stdin/stdout. */
function processTransport(server: ServerProcess): Transport {
  const buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  const transport: Transport = {
    start() {
      server.child.stdout.on('data', (chunk: Buffer) => {
        try {
          buffer.append(chunk);
        } catch (error) {
          transport.onerror?.(error as Error);
          void server.stop();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server logging to stdout) is reported and skipped.
            transport.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      });
      void server.exited.then(() => transport.onclose?.());
      return Promise.resolve();
    },
    send(message) {
      return new Promise<void>((resolve, reject) => {
        const stdin = server.child.stdin;
        if (stdin.destroyed || !stdin.writable) {
          reject(new CadreError('mcp_error', 'the server process is not running', { kind: 'closed' }));
          return;
        }
        if (stdin.write(serializeMessage(message))) resolve();
        else stdin.once('drain', resolve);
      });
    },
    close: () => server.stop(),
  };
  return transport;
}

/** Most bytes one HTTP response from a remote server may carry (a JSON answer, or one event stream). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** fetch() whose response bodies stop with an error past MAX_RESPONSE_BYTES: a server cannot fill the host's memory. */
async function limitedFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.body) return response;
  let seen = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > MAX_RESPONSE_BYTES)
          controller.error(
            new Error(`the server sent more than ${MAX_RESPONSE_BYTES} bytes in one response`),
          );
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function remoteTransport(target: Extract<SessionTarget, { type: 'http' | 'sse' }>): Transport {
  const url = new URL(target.url);
  const options = { requestInit: { headers: target.headers }, fetch: limitedFetch };
  return target.type === 'http'
    ? new StreamableHTTPClientTransport(url, options)
    : new SSEClientTransport(url, options);
}

/** Maps an SDK error to a CadreError with a `kind`. */
export function sessionFailure(error: unknown, what: string): CadreError {
  if (isCadreError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout)
      return new CadreError('timeout', `${what}: ${message}`, { kind: 'timeout' });
    if (error.code === ErrorCode.ConnectionClosed)
      return new CadreError('mcp_error', `${what}: the connection to the server closed`, { kind: 'closed' });
    return new CadreError('mcp_error', `${what}: ${message}`, { kind: 'server' });
  }
  // fetch() failing (refused, reset, DNS) means the remote server is gone, and a 404 for the
  // session means it forgot the session (it restarted): both call for a new session. Anything
  // else is an answer cadre could not use.
  const gone =
    (error instanceof TypeError &&
      /fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(`${message} ${String(error.cause)}`)) ||
    (error instanceof StreamableHTTPError && error.code === 404);
  return new CadreError('mcp_error', `${what}: ${message}`, { kind: gone ? 'closed' : 'server' });
}

/**
 * Connects and initialises a session within `timeoutMs`. Rejects with a CadreError (the process,
 * if any, is left to the caller to stop).
 */
export async function openSession(
  target: SessionTarget,
  hooks: SessionHooks,
  options: { timeoutMs: number; signal?: AbortSignal; clientVersion: string },
): Promise<McpSession> {
  const client = new Client(
    { name: 'cadre', version: options.clientVersion },
    // No output validation against the server's own outputSchema: its `pattern`s would be regular
    // expressions a server chose, run on the host's event loop. The model sees the result either way.
    { capabilities: {}, jsonSchemaValidator: ACCEPT_ANY },
  );
  let closing = false;
  client.onclose = () => {
    if (!closing) hooks.onClose();
  };
  // Transport noise (a stray stdout line) is not a failure of any call; calls report their own.
  client.onerror = () => undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    hooks.onToolsChanged();
  });
  const transport = target.type === 'process' ? processTransport(target.process) : remoteTransport(target);
  try {
    await client.connect(transport, {
      timeout: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    closing = true;
    await client.close().catch(() => undefined);
    throw sessionFailure(error, 'starting the server');
  }
  return sessionOf(client, transport, () => (closing = true));
}

/** The session over a connected client; `markClosing` keeps a deliberate close from counting as a crash. */
function sessionOf(client: Client, transport: Transport, markClosing: () => void): McpSession {
  const info = client.getServerVersion();
  return {
    serverName: info?.name,
    serverVersion: info?.version,
    listTools: ({ timeoutMs, signal }) => listAllTools(client, timeoutMs, signal),
    async callTool(name, args, { timeoutMs, signal }) {
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          timeout: timeoutMs,
          signal,
        });
        const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
        const out: McpRawResult = { content, isError: result.isError === true };
        if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
        return out;
      } catch (error) {
        if (signal.aborted && !isCadreError(error))
          throw new CadreError('cancelled', `calling ${name}: cancelled`, { kind: 'cancelled' });
        throw sessionFailure(error, `calling ${name}`);
      }
    },
    async close() {
      markClosing();
      if (transport instanceof StreamableHTTPClientTransport)
        await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** Every page of the server's tool list, up to MAX_TOOLS. */
async function listAllTools(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client
      .listTools(cursor === undefined ? {} : { cursor }, {
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      })
      .catch((error: unknown) => {
        throw sessionFailure(error, 'listing tools');
      });
    for (const tool of page.tools)
      tools.push({
        name: tool.name,
        description: tool.description ?? tool.title ?? '',
        inputSchema: tool.inputSchema as Record<string, unknown>,
        readOnly: tool.annotations?.readOnlyHint === true,
      });
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < MAX_TOOLS);
  return tools.slice(0, MAX_TOOLS);
}
