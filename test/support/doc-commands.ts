// The `cadre` command lines of the docs' shell blocks, and how to check one against the real CLI's
// commands and options (read from its `--help`, as a user would). Pure: the help text comes from
// the caller, so a renamed flag or command is caught without running anything.

/** One `cadre ...` command line of a page, its words after `cadre`. */
export interface DocCommand {
  page: string;
  line: string;
  words: string[];
}

/** What `cadre <path...> --help` says: its subcommands and its options' flags. */
export interface HelpPage {
  commands: string[];
  options: string[];
}

/** The shell blocks (```sh, ```bash, ```shell, ```console) of a Markdown page. */
export function shellBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(sh|bash|shell|console)\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1] ?? '',
    body: m[2] ?? '',
  }));
}

/**
 * The command lines of a block: in a console block the lines after `$ `; elsewhere every line, an
 * indented line continuing the one before (the usage blocks wrap that way) as does a trailing `\`.
 */
function commandLines(lang: string, body: string): string[] {
  const lines: string[] = [];
  for (const raw of body.split('\n')) {
    if (lang === 'console') {
      if (raw.startsWith('$ ')) lines.push(raw.slice(2));
      continue;
    }
    const last = lines.length - 1;
    if (last >= 0 && (/^\s/.test(raw) || lines[last]?.endsWith('\\')))
      lines[last] = `${lines[last]?.replace(/\\$/, '') ?? ''} ${raw.trim()}`;
    else if (raw.trim() !== '') lines.push(raw);
  }
  return lines;
}

/** Words of a shell line, quotes kept together (and removed). */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** Every `cadre ...` (or `node .../cadre.mjs ...`) command of a page's shell blocks. */
export function docCommands(page: string, markdown: string): DocCommand[] {
  const found: DocCommand[] = [];
  for (const { lang, body } of shellBlocks(markdown))
    for (const line of commandLines(lang, body)) {
      const code = line.replace(/\s#.*$/, '');
      for (const part of code.split(/&&|\|\||[|;]/)) {
        const w = words(part.trim());
        const at = w[0] === 'cadre' ? 1 : w[0] === 'node' && w[1]?.endsWith('cadre.mjs') ? 2 : -1;
        if (at > 0) found.push({ page, line: part.trim(), words: w.slice(at) });
      }
    }
  return found;
}

/** Parses `--help` output: the names under Commands:, the flags under Options:. */
export function parseHelp(text: string): HelpPage {
  const commands: string[] = [];
  const options: string[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (/^\S.*:$/.test(line)) section = line;
    else if (section === 'Commands:') {
      const name = /^ {2}([a-z][\w-]*)/.exec(line)?.[1];
      if (name) commands.push(name);
    } else if (section === 'Options:') {
      for (const flag of /^ {2}-/.test(line) ? (line.match(/--?[\w-]+/g) ?? []) : []) options.push(flag);
    }
  }
  return { commands, options };
}

/** A synopsis word as a flag (`[--json]` -> `--json`, `--out=x` -> `--out`), or undefined. */
function flagOf(word: string): string | undefined {
  const bare = word.replace(/^[[(]+/, '').replace(/[\])]+$/, '');
  return /^--?[A-Za-z]/.test(bare) ? bare.split('=')[0] : undefined;
}

/**
 * The subcommand path of `command` (such as ['agents', 'show']) and what is wrong with it against
 * the CLI's help pages (`help(path)`): an unknown command, or a flag the command does not take
 * (flags of the commands above it, `--cwd` among them, count).
 */
export async function checkCommand(
  command: DocCommand,
  help: (path: readonly string[]) => Promise<HelpPage>,
): Promise<{ path: string[]; problems: string[] }> {
  const path: string[] = [];
  const flags = new Set<string>(['--help', '-h']);
  let page = await help(path);
  page.options.forEach((o) => flags.add(o));
  let rest = command.words;
  // A command group takes no arguments of its own: its next word must be one of its commands.
  while (page.commands.length > 0) {
    const next = rest.find((w) => flagOf(w) === undefined);
    if (next === undefined || !page.commands.includes(next))
      return { path, problems: [`cadre ${[...path, next ?? ''].join(' ')}: no such command`] };
    path.push(next);
    const at = rest.indexOf(next);
    rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
    page = await help(path);
    page.options.forEach((o) => flags.add(o));
  }
  const problems = rest
    .map(flagOf)
    .filter((f): f is string => f !== undefined && !flags.has(f))
    .map((f) => `cadre ${path.join(' ')}: no option ${f}`);
  return { path, problems };
}
