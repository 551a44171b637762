// Grep's `type` filter: ripgrep's file type names mapped to the file-name globs they select.
import { matchGlob } from '../../shared/glob.js';

/** File-name globs per ripgrep type name (a subset of `rg --type-list`, with its aliases). */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.c++', '*.hpp', '*.hh', '*.hxx', '*.h++', '*.h', '*.inl'],
  cs: ['*.cs'],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss', '*.sass', '*.less'],
  docker: ['Dockerfile', 'Dockerfile.*', '*.dockerfile'],
  go: ['*.go'],
  html: ['*.html', '*.htm', '*.xhtml'],
  java: ['*.java'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.vue'],
  json: ['*.json', '*.jsonl', '*.json5'],
  kotlin: ['*.kt', '*.kts'],
  lua: ['*.lua'],
  make: ['Makefile', 'makefile', 'GNUmakefile', '*.mk', '*.mak'],
  markdown: ['*.md', '*.markdown', '*.mdx', '*.mkd'],
  md: ['*.md', '*.markdown', '*.mdx', '*.mkd'],
  php: ['*.php'],
  py: ['*.py', '*.pyi'],
  python: ['*.py', '*.pyi'],
  rb: ['*.rb', '*.rake', '*.gemspec', 'Gemfile', 'Rakefile'],
  ruby: ['*.rb', '*.rake', '*.gemspec', 'Gemfile', 'Rakefile'],
  rs: ['*.rs'],
  rust: ['*.rs'],
  scala: ['*.scala', '*.sc'],
  sh: ['*.sh', '*.bash', '*.zsh', '.bashrc', '.bash_profile', '.zshrc', '.profile'],
  sql: ['*.sql'],
  swift: ['*.swift'],
  toml: ['*.toml'],
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  typescript: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  txt: ['*.txt'],
  xml: ['*.xml', '*.xsd', '*.xsl', '*.svg'],
  yaml: ['*.yaml', '*.yml'],
  yml: ['*.yaml', '*.yml'],
};

/** The type's globs, or undefined for a name ripgrep's subset here does not know. */
export function globsForType(type: string): readonly string[] | undefined {
  return Object.hasOwn(FILE_TYPES, type) ? FILE_TYPES[type] : undefined;
}

/** One glob selecting every file of the type anywhere below the search root, for fs.glob. */
export function typeSearchGlob(globs: readonly string[]): string {
  return globs.length === 1 ? `**/${globs[0] ?? '*'}` : `**/{${globs.join(',')}}`;
}

/** True when the file's base name matches one of the type's globs. */
export function matchesType(filePath: string, globs: readonly string[]): boolean {
  const base = filePath.slice(filePath.lastIndexOf('/') + 1);
  return globs.some((glob) => matchGlob(base, glob, { dot: true }));
}
