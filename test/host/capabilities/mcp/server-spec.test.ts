import { describe, expect, it } from 'vitest';
import { expandValue } from '../../../../src/host/capabilities/mcp/expand.js';
import {
  describeConfig,
  describeTarget,
  resolveServer,
  type McpSource,
} from '../../../../src/host/capabilities/mcp/server-spec.js';
import { isCadreError } from '../../../../src/shared/errors.js';

const origin = { name: 'github', origin: '/p/.mcp.json' };
const bases = { cwd: '/p', home: '/home/u' };

function source(config: McpSource['config'], scope: McpSource['scope'] = 'project'): McpSource {
  return { name: 'github', config, scope, origin: '/p/.mcp.json' };
}

describe('${VAR} expansion', () => {
  it('expands set variables, defaults when unset or empty, and leaves other text alone', () => {
    const env = { A: 'one', EMPTY: '' };
    expect(expandValue('x-${A}-y', env, origin, 'args.0')).toBe('x-one-y');
    expect(expandValue('${B:-fallback}', env, origin, 'f')).toBe('fallback');
    expect(expandValue('${EMPTY:-d}', env, origin, 'f')).toBe('d');
    expect(expandValue('${EMPTY}', env, origin, 'f')).toBe('');
    expect(expandValue('$A ${ A} ${1X}', env, origin, 'f')).toBe('$A ${ A} ${1X}');
    expect(expandValue('${A:-}', {}, origin, 'f')).toBe('');
  });

  it('a missing variable without a default names the server, the file, the field and the variable', () => {
    let error: unknown;
    try {
      expandValue('Bearer ${GITHUB_TOKEN}', {}, origin, 'headers.Authorization');
    } catch (e) {
      error = e;
    }
    expect(isCadreError(error) && error.code).toBe('invalid_input');
    expect((error as Error).message).toBe(
      'MCP server "github" (/p/.mcp.json): headers.Authorization: ${GITHUB_TOKEN} is not set and has no default; ' +
        'set GITHUB_TOKEN in the environment, or write ${GITHUB_TOKEN:-default} in the configuration',
    );
  });

  it('covers command, args, env, cwd, url and headers', () => {
    const env = { BIN: '/bin/srv', ARG: 'a', TOKEN: 't', DIR: 'sub', HOST: 'h.example' };
    const stdio = resolveServer(
      source({
        type: 'stdio',
        command: '${BIN}',
        args: ['--x=${ARG}'],
        env: { T: '${TOKEN}' },
        cwd: '${DIR}',
      }),
      env,
      bases,
    );
    expect(stdio.target).toMatchObject({
      command: '/bin/srv',
      args: ['--x=a'],
      env: { T: 't' },
      cwd: '/p/sub',
    });
    const remote = resolveServer(
      source({ type: 'http', url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } }),
      env,
      bases,
    );
    expect(remote.target).toEqual({
      type: 'http',
      url: 'https://h.example/mcp',
      headers: { Authorization: 'Bearer t' },
    });
    for (const [field, config] of [
      ['command', { type: 'stdio', command: '${NO}' }],
      ['args.1', { type: 'stdio', command: 'x', args: ['a', '${NO}'] }],
      ['env.K', { type: 'stdio', command: 'x', env: { K: '${NO}' } }],
      ['cwd', { type: 'stdio', command: 'x', cwd: '${NO}' }],
      ['url', { type: 'sse', url: '${NO}' }],
      ['headers.X', { type: 'http', url: 'http://h', headers: { X: '${NO}' } }],
    ] as const)
      expect(() => resolveServer(source(config as McpSource['config']), {}, bases)).toThrow(
        `: ${field}: \${NO}`,
      );
  });
});

describe('resolveServer', () => {
  it('applies explicit defaults: 120 s per call, 30 s to start, 100,000 characters of output', () => {
    const spec = resolveServer(source({ type: 'stdio', command: 'srv' }), {}, bases);
    expect(spec).toMatchObject({ timeoutMs: 120_000, startupTimeoutMs: 30_000, maxOutputChars: 100_000 });
    expect(spec.target).toMatchObject({ cwd: '/p', sandbox: { network: true, writable: [] } });
    const tuned = resolveServer(
      source({
        type: 'stdio',
        command: 'srv',
        timeout: 2.5,
        startupTimeout: 5,
        maxOutputChars: 10,
        sandbox: false,
      }),
      {},
      bases,
    );
    expect(tuned).toMatchObject({ timeoutMs: 2500, startupTimeoutMs: 5000, maxOutputChars: 10 });
    expect(tuned.target).toMatchObject({ sandbox: false });
  });

  it('resolves relative paths against the project (project servers) or home (user servers)', () => {
    const config: McpSource['config'] = {
      type: 'stdio',
      command: 'srv',
      cwd: 'tools',
      sandbox: { writable: ['out', '~/cache'] },
    };
    expect(resolveServer(source(config), {}, bases).target).toMatchObject({
      cwd: '/p/tools',
      sandbox: { writable: ['/p/out', '/home/u/cache'] },
    });
    expect(resolveServer(source(config, 'user'), {}, bases).target).toMatchObject({ cwd: '/home/u/tools' });
  });

  it('keys by what starts the server: same configuration, same key; any change, another', () => {
    const a = resolveServer(source({ type: 'stdio', command: 'srv', args: ['1'] }), {}, bases);
    const renamed = resolveServer(
      { ...source({ type: 'stdio', command: 'srv', args: ['1'] }), name: 'other' },
      {},
      bases,
    );
    const slower = resolveServer(
      source({ type: 'stdio', command: 'srv', args: ['1'], timeout: 9 }),
      {},
      bases,
    );
    const changed = resolveServer(source({ type: 'stdio', command: 'srv', args: ['2'] }), {}, bases);
    const envChanged = resolveServer(
      source({ type: 'stdio', command: 'srv', args: ['1'], env: { A: '${A}' } }),
      { A: 'x' },
      bases,
    );
    expect(renamed.key).toBe(a.key);
    expect(slower.key).toBe(a.key);
    expect(changed.key).not.toBe(a.key);
    expect(envChanged.key).not.toBe(a.key);
  });

  it('refuses URLs that are not http(s), naming the server', () => {
    expect(() => resolveServer(source({ type: 'http', url: 'file:///etc/passwd' }), {}, bases)).toThrow(
      'MCP server "github" (/p/.mcp.json): url: only http and https are supported, not file:',
    );
    expect(() => resolveServer(source({ type: 'http', url: 'not a url' }), {}, bases)).toThrow(
      'is not a URL',
    );
  });

  it('describes targets without header values', () => {
    expect(
      describeTarget({ type: 'http', url: 'https://h/mcp', headers: { Authorization: 'Bearer secret' } }),
    ).toBe('http https://h/mcp (headers: Authorization)');
    expect(
      describeTarget({
        type: 'stdio',
        command: 'npx',
        args: ['-y', 'a b'],
        env: { T: 'secret' },
        cwd: '/',
        sandbox: false,
      }),
    ).toBe('npx -y "a b"');
  });
});

describe('describeConfig (what a trust prompt shows)', () => {
  it('shows the command, the environment it sets and any loosened sandbox', () => {
    expect(describeConfig({ type: 'stdio', command: 'srv', args: ['-v'] })).toBe('srv -v');
    expect(
      describeConfig({
        type: 'stdio',
        command: 'srv',
        env: { LD_PRELOAD: '/x.so', TOKEN: '${T}' },
        sandbox: { writable: ['~'], network: false },
      }),
    ).toBe('srv [env: LD_PRELOAD, TOKEN; passes your $T; no network; may write: ~]');
    expect(describeConfig({ type: 'stdio', command: 'srv', sandbox: false })).toBe('srv [UNSANDBOXED]');
    expect(describeConfig({ type: 'http', url: 'https://h/mcp', headers: { A: 'secret' } })).toBe(
      'http https://h/mcp (headers: A)',
    );
  });

  it('names the variables of the person that env and header values pass, never their values', () => {
    const env = { K: 'Bearer ${ANTHROPIC_API_KEY}', L: '${AWS_SECRET_ACCESS_KEY:-none}', M: 'literal' };
    expect(describeConfig({ type: 'stdio', command: 'srv', env })).toBe(
      'srv [env: K, L, M; passes your $ANTHROPIC_API_KEY, $AWS_SECRET_ACCESS_KEY]',
    );
    expect(
      describeConfig({
        type: 'http',
        url: 'https://h/mcp',
        headers: { Authorization: 'Bearer ${ANTHROPIC_API_KEY}', X: '${ANTHROPIC_API_KEY}' },
      }),
    ).toBe('http https://h/mcp (headers: Authorization, X) [passes your $ANTHROPIC_API_KEY]');
  });

  it('names the variables a command, its arguments, its directory or a URL pass on too', () => {
    expect(
      describeConfig({
        type: 'stdio',
        command: '${TOOLS}/srv',
        args: ['--key=${AWS_SECRET_ACCESS_KEY}', '${GITHUB_TOKEN:-none}'],
        cwd: '${WORK}',
      }),
    ).toBe(
      '"${TOOLS}/srv" "--key=${AWS_SECRET_ACCESS_KEY}" "${GITHUB_TOKEN:-none}" ' +
        '[passes your $TOOLS, $AWS_SECRET_ACCESS_KEY, $GITHUB_TOKEN, $WORK; cwd: ${WORK}]',
    );
    expect(describeConfig({ type: 'http', url: 'https://h/mcp?k=${ANTHROPIC_API_KEY}' })).toBe(
      'http https://h/mcp?k=${ANTHROPIC_API_KEY} [passes your $ANTHROPIC_API_KEY]',
    );
  });
});
