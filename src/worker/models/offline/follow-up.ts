// What discovery could not settle in one turn, searched in the next: the source directories a
// definition search cut at its cap never reached, and the plain words when the specific terms
// were too rare to find candidates by. Recomputed from the conversation, so every turn agrees.
import type { ToolRecord } from './conversation.js';
import { fileKind, isMirror } from './file-class.js';
import type { QuestionTerms } from './question.js';
import { countCall, plannedDiscovery, wordPattern, type PlannedCall, type Purpose } from './search-plan.js';
import { isCut, parseCounts, parseGrepContent } from './tool-output.js';

/** Source directories searched again when the definition search was cut, at most. */
const FOLLOW_UP_DIRS = 2;
/** Fewer source files than this mentioning the specific terms: count the words too. */
const RARE = 3;

/** The follow-up searches for a conversation whose discovery is in `records`. */
export function followUpCalls(
  q: QuestionTerms,
  offered: ReadonlySet<string>,
  records: readonly ToolRecord[],
): PlannedCall[] {
  const discovery = plannedDiscovery(q, offered, records);
  const find = (purpose: Purpose) => {
    const call = discovery.find((c) => c.purpose === purpose);
    const key = call && JSON.stringify(call.input);
    const record = records.find((r) => r.name === 'Grep' && !r.isError && JSON.stringify(r.input) === key);
    return { call, record };
  };
  const counted = find('mentions').record ?? find('words').record;
  const files = counted ? [...parseCounts(counted.content).keys()] : [];
  const known = new Set(files);
  const sources = files.filter((f) => fileKind(f) === 'source' && !isMirror(f, known));
  const calls: PlannedCall[] = [];
  const defs = find('definitions');
  if (defs.call && defs.record && isCut(defs.record.content)) {
    // The search lists files in path order, so `src/` comes after `dist/`, `internal/` and `lib/`:
    // the directories after the last file it showed, with the most source files mentioning the
    // question's terms, are searched on their own.
    // Within the directory it searched, when discovery searched only the project's source.
    const under = typeof defs.call.input['path'] === 'string' ? `${defs.call.input['path']}/` : '';
    const dirOf = (file: string) => {
      const rest = file.slice(under.length);
      return rest.includes('/') ? `${under}${rest.split('/')[0] ?? ''}` : undefined;
    };
    const from = dirOf(parseGrepContent(defs.record.content).at(-1)?.path ?? '') ?? '';
    const perDir = new Map<string, number>();
    for (const file of sources) {
      const dir = file.startsWith(under) ? dirOf(file) : undefined;
      if (dir !== undefined && dir >= from) perDir.set(dir, (perDir.get(dir) ?? 0) + 1);
    }
    const call = defs.call;
    for (const [dir] of [...perDir]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, FOLLOW_UP_DIRS))
      calls.push({ ...call, input: { ...call.input, path: dir } });
  }
  const words = wordPattern(q.terms.filter((t) => t.kind === 'word'));
  if (find('mentions').record && sources.length < RARE && words !== undefined)
    calls.push(countCall(q, 'words', words));
  return calls;
}
