// The problems found in one agent definition, each reported at its field: named with the
// definition's prefix (`agents.debugger.tools` inside a config file) and, in a Markdown file, at
// the line of its top-level key. Errors stop the agent from loading; warnings do not.
import type { RegistryIssue } from '../../shared/agent-definition.js';
import { sortByLine } from './format-issue.js';

/** Where a definition's fields came from. */
export interface IssueSite {
  path: string;
  /** Prefix for field names in messages, e.g. `agents.debugger` inside a config file. */
  fieldPrefix?: string;
  /** File line of each top-level key, when the source has lines. */
  keyLines?: ReadonlyMap<string, number>;
}

/** The errors and warnings of one definition. */
export class DefinitionIssues {
  readonly errors: RegistryIssue[] = [];
  readonly warnings: RegistryIssue[] = [];

  constructor(private readonly site: IssueSite) {}

  /** An issue about `field` (a dotted path; undefined for the definition as a whole). */
  at(field: string | undefined, message: string): RegistryIssue {
    const out: RegistryIssue = { path: this.site.path, message };
    const top = field?.split('.')[0];
    const line = top === undefined ? undefined : this.site.keyLines?.get(top);
    if (line !== undefined) out.line = line;
    if (field !== undefined) out.field = this.site.fieldPrefix ? `${this.site.fieldPrefix}.${field}` : field;
    return out;
  }

  /** Records an error about `field`. */
  error(field: string | undefined, message: string): void {
    this.errors.push(this.at(field, message));
  }

  /** Records a warning about `field`. */
  warn(field: string | undefined, message: string): void {
    this.warnings.push(this.at(field, message));
  }

  /** Both lists in file order, with the name the definition claims when it has one. */
  failed(name: string | undefined): {
    name?: string;
    errors: RegistryIssue[];
    warnings: RegistryIssue[];
  } {
    const out = { errors: sortByLine(this.errors), warnings: sortByLine(this.warnings) };
    return name === undefined ? out : { ...out, name };
  }
}
