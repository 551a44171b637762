// A world for attacking cadre's command sandbox through the real CLI: a project with secrets and a
// git repository, a fake home full of credential stores, a directory outside the project, each with
// a canary of its own, and a snapshot of everything that must not change. Owned by the user the
// CLI runs as, so the same world serves a root run and an unprivileged one.
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { lstatSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CliUser } from '../../support/cli.js';

/** Canaries, one per place a secret lives. */
export interface Canaries {
  home: string;
  project: string;
  outside: string;
  varOutside: string;
  hostEnv: string;
  /** What every unix socket the world serves sends to whoever connects. */
  socket: string;
}

/** Unix sockets served while the world lives: each sends the socket canary on connect. */
export interface Sockets {
  /** A socket file inside the project (a docker socket bound in, say). */
  project: string;
  /** A socket file under /run, where the host's daemons listen. */
  run: string;
  /** An abstract socket name (no file; Linux only), without its leading NUL. */
  abstract: string;
}

/** The world's places. */
export interface World {
  root: string;
  home: string;
  project: string;
  /** Outside the project, beside it. */
  outside: string;
  /** Outside the project and outside /tmp (which the sandbox replaces anyway). */
  varOutside: string;
  canaries: Canaries;
  sockets: Sockets;
  /** In the command line of every process the attack starts, to find survivors (not a secret). */
  marker: string;
  user: CliUser | undefined;
  cleanup(): Promise<void>;
}

const token = (label: string) => `canary-${label}-${Math.floor(Math.random() * 1e12).toString(36)}`;

async function put(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

async function chownTree(p: string, user: CliUser): Promise<void> {
  await chown(p, user.uid, user.gid);
  if (!lstatSync(p).isDirectory()) return;
  for (const name of await readdir(p)) await chownTree(path.join(p, name), user);
}

/** A unix socket server at `at` (a path, or an abstract name after a NUL) that sends `canary`. */
async function serve(at: string, canary: string): Promise<Server> {
  const server = createServer((socket) => socket.end(`${canary}\n`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, resolve);
  });
  // Anyone may connect: the unprivileged run's commands too, were the sandbox to let them.
  if (!at.startsWith('\0')) await chmod(at, 0o777);
  return server;
}

/** Builds a world; `userConfig` becomes ~/.cadre/config.json. */
export async function makeWorld(user: CliUser | undefined, userConfig: object): Promise<World> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-attack-')));
  const varOutside = await realpath(await mkdtemp(path.join('/var/tmp', 'cadre-attack-outside-')));
  const canaries: Canaries = {
    home: token('home'),
    project: token('project'),
    outside: token('outside'),
    varOutside: token('var'),
    hostEnv: token('env'),
    socket: token('socket'),
  };
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  await put(home, {
    '.ssh/id_rsa': `-----BEGIN KEY-----\n${canaries.home}\n`,
    '.aws/credentials': `[default]\naws_secret_access_key=${canaries.home}\n`,
    '.config/gh/hosts.yml': `oauth_token: ${canaries.home}\n`,
    '.netrc': `machine x password ${canaries.home}\n`,
    '.npmrc': `//registry.npmjs.org/:_authToken=${canaries.home}\n`,
    '.git-credentials': `https://u:${canaries.home}@example.com\n`,
    '.cargo/credentials.toml': `token = "${canaries.home}"\n`,
    '.cargo/bin/tool': '#!/bin/sh\necho tool\n',
    '.claude/.credentials.json': `{"token": "${canaries.home}"}\n`,
    '.cadre/notes.txt': canaries.home,
    '.cadre/config.json': JSON.stringify(userConfig),
    '.gitconfig': '[user]\n\tname = Attack Tester\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n',
    'Documents/private.txt': canaries.home,
  });
  await put(project, {
    '.env': `API_TOKEN=${canaries.project}\n`,
    'config/.env.local': `DB_PASSWORD=${canaries.project}\n`,
    'src/app.ts': 'export const app = 1;\n',
    '.cadre/config.json': JSON.stringify({ permissions: { allow: ['Read(src/**)'] } }),
  });
  await put(outside, { 'secret.txt': canaries.outside });
  await put(varOutside, { 'secret.txt': canaries.varOutside });
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: project, env: { HOME: home, PATH: process.env.PATH ?? '' } });
  git('init', '-q');
  git('add', 'src/app.ts');
  git('commit', '-q', '-m', 'initial');
  for (const dir of [root, varOutside]) if (user !== undefined) await chownTree(dir, user);
  const sockets: Sockets = {
    project: path.join(project, 'docker.sock'),
    run: `/run/cadre-attack-${process.pid}-${Date.now()}.sock`,
    abstract: `cadre-attack-${process.pid}-${Date.now()}`,
  };
  const servers = await Promise.all(
    [sockets.project, sockets.run, `\0${sockets.abstract}`].map((at) => serve(at, canaries.socket)),
  );
  return {
    root,
    home,
    project,
    outside,
    varOutside,
    canaries,
    sockets,
    marker: `attack-marker-${process.pid}-${Date.now()}`,
    user,
    async cleanup() {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await rm(sockets.run, { force: true });
      await rm(root, { recursive: true, force: true });
      await rm(varOutside, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir` (relative paths, sorted), with its content for small files. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    const abs = path.join(dir, rel);
    const st = lstatSync(abs);
    if (st.isDirectory()) {
      out[`${rel}/`] = '';
      for (const name of (await readdir(abs)).sort()) await walk(rel === '' ? name : `${rel}/${name}`);
    } else out[rel] = st.isFile() && st.size < 65536 ? await readFile(abs, 'utf8') : `<${st.size} bytes>`;
  };
  await walk('');
  return out;
}

/** A command the shell policy cannot read (base64 piped into bash): only the sandbox stands in its way. */
export const opaque = (command: string): string =>
  `echo ${Buffer.from(command).toString('base64')} | base64 -d | bash`;
