// Which programs run code the policy cannot read (opaque), and where a rule must name the flag.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellGrammar } from '../../../src/host/capabilities/policy.js';
import { sedScriptIsPlain } from '../../../src/host/capabilities/policy/sed-script.js';
import { readShell } from '../../../src/host/capabilities/policy/shell-read.js';
import { viewCommand } from '../../../src/host/capabilities/policy/shell-unwrap.js';

beforeAll(() => loadShellGrammar());

/** The opaque code a command runs: reason and how many words a rule must name, or undefined. */
function opaque(source: string): { reason: string; words: number } | undefined {
  const [part] = readShell(source).parts;
  const view = viewCommand(part as NonNullable<typeof part>);
  const first = view.opaque[0];
  return first ? { reason: first.reason, words: first.words } : undefined;
}

describe('opaque code', () => {
  it.each([
    ["python3 -c 'print(1)'", 2],
    ["python3.12 -Bc 'print(1)'", 2],
    ['python3 -W ignore -c x', 4],
    ['python3', 1],
    ['python3 -', 2],
    ["node -e 'x'", 2],
    ["node --eval='x'", 2],
    ["node -p '1+1'", 2],
    ['node --require ./r.js -e x', 4],
    ["perl -ne 'print'", 2],
    ["ruby -e 'x'", 2],
    ["php -r 'x'", 2],
    ['deno eval x', 2],
    ["bun -e 'x'", 2],
    ["zsh -c 'ls'", 2],
    ['git -c core.pager=cat log', 2],
    ['git --config-env=core.pager=X log', 2],
    ['git clone --upload-pack=x repo', 3],
    ['git clone -u x repo', 3],
    ['git fetch --upload-pack x origin', 3],
    ['git rebase -x "make test" main', 3],
    ['git rebase --exec "make" main', 3],
    ['git bisect run make', 3],
    ['git submodule foreach ls', 3],
    ['git grep -O foo', 3],
    ['npm --node-options=--require=x test', 2],
    ['npm test --script-shell ./x', 3],
    ['npm exec -c "ls"', 3],
    ['npx -c "ls"', 2],
    ['pnpm --userconfig ./x install', 2],
    ['npm --NODE_OPTIONS=x test', 2],
    ["sed '1e id' f", 2],
    ["sed 's/a/b/e' f", 2],
    ["sed 's/a/b/w out' f", 2],
    ["sed -e 'r /etc/passwd' f", 3],
    ['sed -f script.sed f', 3],
    ['awk \'BEGIN { system("id") }\'', 2],
    ['awk \'{ print | "sh" }\' f', 2],
    ['awk \'{ print > "out" }\' f', 2],
    ['tar -xf a.tar --to-command=sh', 4],
    ['tar -I "sh -c x" -xf a.tar', 2],
    ['rsync -e "sh -c x" a b', 2],
    ['ssh -o ProxyCommand=x host', 2],
    ['sort --compress-program=x f', 2],
    ['rg --pre ./x foo', 2],
    ['make --eval="x:" all', 2],
    ['vim -c ":!id" f', 2],
    ['source ./x.sh', 2],
    ['. ./x.sh', 2],
    ['shopt -s extglob', 3],
    ['alias ls=rm', 2],
    ['trap "rm x" EXIT', 3],
    ['hash -p /tmp/x ls', 4],
    ['let x=1', 2],
    ['set -k', 2],
    ['bash', 1],
    ['sh -s', 2],
    ['bash -O extglob -c ls', 2],
    ['env -S "a\\tb"', 3],
    ["sed -E 's/[/]+/x/g' f", 3],
    ['NODE_OPTIONS=--require=./x.js node a.js', 1],
    ['npm_config_node_options=x npm test', 1],
    ['Npm_Config_Script_Shell=./x npm test', 1],
    ['GIT_SSH_COMMAND=./x git fetch', 1],
    ['env NPM_CONFIG_NODE_OPTIONS=x npm test', 4],
    ['eval "$x"', 2],
  ])('%j is opaque, naming %i words', (source, words) => {
    const o = opaque(source);
    expect(o, source).toBeDefined();
    expect(o?.words).toBe(words);
  });

  it.each([
    'python3 script.py -c x',
    'python3 -m pytest -c x',
    'node app.js -e x',
    'node --version',
    'perl script.pl -e',
    'git log -c',
    'git status',
    'git diff --cached',
    'npm test -- --node-options=x',
    'npm run build',
    "sed -n '1,20p' f",
    "sed -i 's/foo/bar/g; s/x/y/' f",
    "sed '/^#/d;/^$/d' f",
    "awk '{ print $1 }' f",
    "awk -F: -v x=1 '{ print $1 }' f",
    'tar -xzf a.tar.gz',
    'bash script.sh',
    'sh -c "ls"',
    'set -euo pipefail',
    'make -j4 test',
  ])('%j is not opaque', (source) => {
    expect(opaque(source)).toBeUndefined();
  });
});

describe('sedScriptIsPlain', () => {
  it.each([
    ['s/a/b/g', true],
    ['1,20p', true],
    ['/^#/d;/^$/d', true],
    ['$!N;s/\\n/ /;P;D', true],
    ['/x/{s/a/b/;p}', true],
    ['y/abc/xyz/', true],
    ['1i\\\nheader', true],
    ['s|a|b|2', true],
    ['/a/,/b/!d', true],
    ['s/[/]/x/', false],
    ['1e id', false],
    ['s/a/b/e', false],
    ['s/a/b/w out', false],
    ['r /etc/passwd', false],
    ['W out', false],
    ['s/a/b', false],
    ['Z', false],
  ])('%j → %s', (script, plain) => {
    expect(sedScriptIsPlain(script)).toBe(plain);
  });
});
