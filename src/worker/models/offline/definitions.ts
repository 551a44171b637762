// Where a name is defined rather than mentioned, read off one line of code: `function X`,
// `class X`, `const X =`, `X = function`, `obj.X = …`, `X(…) {` in a class, `X: …` and `'x-y': {`
// in an object, `def X`, `func X`, `fn X`, `defineGetter(obj, 'x', …)`. Regexes over lines, not a
// parser: enough to tell the definition of `res.redirect` from its hundred calls, at no cost to a
// worker's start-up.

/** What kind of line defines the name. */
type DefinitionShape =
  | 'function' // function X / def X / func X / fn X / X = function / X = (…) =>
  | 'class' // class X / interface X / type X = / enum X / struct X
  | 'method' // X(…) { inside a class or object
  | 'alias' // obj.X = Y; (the work is done by Y)
  | 'value' // const X = …, obj.X = 42, X: 'text'
  | 'local' // an indented const X = … (a variable inside a function body)
  | 'key' // X: { … } or 'x-y': { (an option table, a route table)
  | 'declaration'; // declare function X (typings)

/** One name a line defines. */
export interface Definition {
  name: string;
  /** The object it is defined on (`res` in `res.redirect = …`), when the line says. */
  owner?: string;
  shape: DefinitionShape;
  /** For aliases: the name assigned (`createDuration` in `moment.duration = createDuration`). */
  target?: string;
}

const KEYWORDS = new Set(
  'if for while switch catch return function typeof new delete await yield throw else do case with super this import export from constructor'.split(
    ' ',
  ),
);

const FUNCTION_VALUE = /^(?:async\s+)?(?:function\b|\(.*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>|\(\s*$|class\b)/;

const RULES: { re: RegExp; shape: (m: RegExpExecArray) => DefinitionShape | undefined }[] = [
  {
    // function X, def X, fn X, func X and Go's func (r *T) X
    re: /\b(declare\s+)?(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function(?:\s*\*\s*|\s+)|def\s+|fn\s+|func\s+(?:\([^)]*\)\s*)?)([\w$]+)/,
    shape: (m) => (m[1] ? 'declaration' : 'function'),
  },
  {
    re: /\b(declare\s+)?(?:abstract\s+)?(?:class|interface|enum|struct|trait|type)\s+([\w$]+)/,
    shape: (m) => (m[1] ? 'declaration' : 'class'),
  },
];

/** The names a line defines (usually none or one). */
export function parseDefinitions(line: string): Definition[] {
  const out: Definition[] = [];
  const text = line.trim();
  if (text.startsWith('//') || text.startsWith('*') || text.startsWith('/*') || text.startsWith('#'))
    return out;
  for (const rule of RULES) {
    const m = rule.re.exec(text);
    const shape = m && rule.shape(m);
    if (m && shape && m[2] && !KEYWORDS.has(m[2])) out.push({ name: m[2], shape });
  }
  // const X = …, let X: T = …
  const variable = /^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]*)?=\s*(.*)$/.exec(
    text,
  );
  if (variable?.[1]) {
    const value = variable[2] ?? '';
    // Indented, it is most likely a variable of a function body, not something one looks up; a
    // `require()` names what another module defines.
    const local = /^\s/.test(line) && !FUNCTION_VALUE.test(value);
    if (/^(?:await\s+)?(?:require|import)\s*\(/.test(value)) {
      out.push({ name: variable[1], shape: 'alias' });
      return out;
    }
    out.push({
      name: variable[1],
      shape: local ? 'local' : FUNCTION_VALUE.test(value) ? 'function' : 'value',
    });
  }
  // obj.X = …, obj.prototype.X = …, X = function
  const assign = /^(?:([\w$.]+)\.)?([\w$]+)\s*=(?![=>])\s*(.*)$/.exec(text);
  if (assign?.[2] && !variable && !KEYWORDS.has(assign[2])) {
    const owner = assign[1]?.split('.').filter((p) => p !== 'prototype' && p !== 'fn')[0];
    const value = (assign[3] ?? '').trim();
    const alias = /^([\w$.]+)\s*;?\s*$/.exec(value);
    const def: Definition = {
      name: assign[2],
      shape: FUNCTION_VALUE.test(value) ? 'function' : alias ? 'alias' : 'value',
    };
    if (owner) def.owner = owner;
    if (alias?.[1] && def.shape === 'alias') def.target = alias[1].split('.').pop() ?? alias[1];
    // `x = y` inside a function body is not a definition unless it sets a member or a function.
    if (owner || def.shape === 'function') out.push(def);
  }
  // X(…) { — a method of a class or an object literal.
  const method =
    /^(?:(?:public|private|protected|static|async|get|set|override|readonly)\s+)*\*?\s*([\w$]+)\s*(?:<[^>]*>)?\s*\(.*\)\s*(?::\s*[^{;=]+)?\{\s*(?:\}\s*)?$/.exec(
      text,
    );
  // A call that passes a function (`defineGetter(req, 'ip', function ip(){`, `it('x', () => {`) is
  // not a method.
  if (method?.[1] && !KEYWORDS.has(method[1]) && !/\bfunction\b|=>\s*\{\s*\}?\s*$/.test(text))
    out.push({ name: method[1], shape: 'method' });
  // X: …, 'x-y': … — a property of an object literal.
  const key = /^(['"`]?)([\w$-]+)\1\s*:\s*(.*)$/.exec(text);
  if (key?.[2] && !KEYWORDS.has(key[2]) && !/^\d+$/.test(key[2])) {
    const value = (key[3] ?? '').trim();
    // `validateStatus: mergeDirectKeys,` hands the name to something defined elsewhere.
    const alias = /^([A-Za-z_$][\w$.]*),?$/.exec(value);
    const shape = FUNCTION_VALUE.test(value)
      ? 'method'
      : value === '{' || value === '['
        ? 'key'
        : alias && !/^(?:true|false|null|undefined)$/.test(alias[1] ?? '')
          ? 'alias'
          : 'value';
    const def: Definition = { name: key[2], shape };
    if (shape === 'alias' && alias?.[1]) def.target = alias[1].split('.').pop() ?? alias[1];
    out.push(def);
  }
  // .option('-p, --port <port>', …), parser.add_argument('--port', …): a command-line flag.
  const option =
    /\.(?:option|requiredOption|addOption|flag|add_argument|addArgument)\(\s*(['"`])([^'"`]*)\1/.exec(text);
  for (const m of option?.[2]?.matchAll(/--?([A-Za-z][\w-]*)/g) ?? [])
    if (m[1]) out.push({ name: m[1], shape: 'key' });
  // defineGetter(req, 'ip', …), Object.defineProperty(x, 'name', …)
  const defined = /\b\w*define\w*\(\s*([\w$.]+)\s*,\s*['"]([\w$-]+)['"]/i.exec(text);
  if (defined?.[2]) {
    const owner = defined[1]?.split('.').pop();
    out.push(
      owner ? { name: defined[2], owner, shape: 'function' } : { name: defined[2], shape: 'function' },
    );
  }
  return out;
}

/** The names a definition search looks for. */
export interface DefinitionNames {
  /** Names defined exactly so (lowercase identifiers: `switchmap`, `forbid-only`). */
  exact: string[];
  /** Stems of the question's words: any name holding one (`loadConfigFromFile` for `load`). */
  stems: string[];
}

const alternation = (list: readonly string[]) =>
  [...new Set(list.filter((f) => /^[\w$-]+$/.test(f)))].map((f) => f.replace(/\$/g, '\\$')).join('|');

/**
 * A Grep pattern (case-insensitive) for lines that could define one of `names`; the lines are
 * then read with parseDefinitions. A look-ahead for any fragment comes first, so the costly shapes
 * are only tried on the few lines that hold one, and each name starts where a word starts (six
 * times faster on a 2,000-file tree than letting every position start one).
 */
export function definitionPattern(names: DefinitionNames): string | undefined {
  const exact = alternation(names.exact);
  const stems = alternation(names.stems);
  const any = alternation([...names.exact, ...names.stems]);
  if (any === '') return undefined;
  const choices: string[] = [];
  if (exact !== '') choices.push(`[_$]*(?:${exact})(?![\\w$])`);
  if (stems !== '') choices.push(`[\\w$]*?(?:${stems})[\\w$]*`);
  const name = `(?<![\\w$])(?:${choices.join('|')})`;
  const key = `(?:${exact !== '' ? `${exact}|` : ''}${name})`;
  const shapes = [
    `\\b(?:function\\s*\\*?|class|interface|enum|struct|trait|type|def|func|fn|const|let|var)\\s+${name}`,
    `\\bfunc\\s*\\([^)]*\\)\\s*${name}`,
    `${name}\\s*=(?![=>])`,
    `(?<=^\\s*)(?:(?:public|private|protected|static|async|get|set|override|readonly)\\s+)*\\*?${name}\\s*(?:<[^>]*>)?\\s*\\(.*\\)\\s*(?::[^{;=]+)?\\{\\s*$`,
    `(?<=^\\s*)(?:['"\`]${key}['"\`]|${name})\\s*:`,
    `define\\w*\\(\\s*[\\w$.]+\\s*,\\s*['"]${key}['"]`,
    `\\.(?:option|requiredOption|addOption|flag|add_argument|addArgument)\\(\\s*['"\`][^'"\`]*(?:${any})`,
  ];
  return `^(?=.*?(?:${any})).*?(?:${shapes.join('|')})`;
}
