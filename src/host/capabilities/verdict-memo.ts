// Policy verdicts kept for one run's calls that are named, not pathed: an MCP tool's call is judged
// on its name, its server's read-only annotation and the run's places, mode and rules, so a run that
// calls the same tool a thousand times would ask the policy the same question a thousand times.
// `decide` is pure, so the verdict for an input equal to one already judged is that verdict. Equal
// means by value, field by field, every field `decide` reads (the rules a person allowed for the
// session included): a rule added at a prompt, another mode, or a list changed in place is a
// different input and is judged afresh. A kept `ask` still goes to the approval queue each time:
// only the policy's answer is remembered, never a person's.
import { decide } from './policy.js';
import type { PolicyDecision, PolicyInput, PolicyRules, RuleEntry } from './policy/types.js';

/** A call judged by name: the fields of `PolicyInput` it carries besides the run's context. */
export interface NamedCall {
  capability: string;
  tool: string;
  readOnly: boolean;
}

/** The run's side of the input, as `decide` receives it. */
type RunSide = Pick<
  PolicyInput,
  'projectDir' | 'extraRoots' | 'homeDir' | 'mode' | 'rules' | 'records' | 'protect'
>;

/** Most verdicts kept per run (a run offered more tools judges the rest afresh). */
const MAX_KEPT = 256;

/** A copy of `list` that later changes to `list` cannot reach. */
function copyOf<T>(list: readonly T[] | undefined): readonly T[] | undefined {
  return list === undefined ? undefined : [...list];
}

// Equal by value: strings (or both absent) compare as text; anything else (which the types rule out,
// but a list changed in place could hold) is never equal, so such an input is judged afresh.
function sameText(a: unknown, b: unknown): boolean {
  return typeof a === 'string' ? a === b : a === undefined && b === undefined;
}

function sameList<T>(
  a: readonly T[] | undefined,
  b: readonly T[] | undefined,
  same: (x: T, y: T) => boolean,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i] as T, b[i] as T)) return false;
  return true;
}

const sameString = (x: string, y: string) => typeof x === 'string' && x === y;

function sameRule(x: RuleEntry, y: RuleEntry): boolean {
  if (typeof x === 'string' || typeof y === 'string') return x === y;
  if (typeof x !== 'object' || x === null || typeof y !== 'object' || y === null) return false;
  return (
    typeof x.rule === 'string' &&
    x.rule === y.rule &&
    sameText(x.origin, y.origin) &&
    Object.keys(x).length === Object.keys(y).length
  );
}

/** A snapshot of the rule lists `decide` reads: the lists copied, each rule object copied too. */
function rulesCopy(rules: PolicyRules | undefined): PolicyRules | undefined {
  if (rules === undefined) return undefined;
  const copy = (list: readonly RuleEntry[] | undefined) =>
    Array.isArray(list)
      ? list.map((entry: RuleEntry) => (typeof entry === 'object' && entry !== null ? { ...entry } : entry))
      : list;
  const out: PolicyRules = {};
  const allow = copy(rules.allow);
  const ask = copy(rules.ask);
  const deny = copy(rules.deny);
  if (allow !== undefined) out.allow = allow;
  if (ask !== undefined) out.ask = ask;
  if (deny !== undefined) out.deny = deny;
  return out;
}

// `decide` reads only the three lists of the rules (compileRules).
function sameRules(a: PolicyRules | undefined, b: PolicyRules | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    sameList(a.allow, b.allow, sameRule) &&
    sameList(a.ask, b.ask, sameRule) &&
    sameList(a.deny, b.deny, sameRule)
  );
}

interface Kept {
  side: RunSide;
  verdict: PolicyDecision;
}

function sameSide(a: RunSide, b: RunSide): boolean {
  return (
    sameText(a.projectDir, b.projectDir) &&
    sameText(a.homeDir, b.homeDir) &&
    sameText(a.mode, b.mode) &&
    sameList(a.extraRoots, b.extraRoots, sameString) &&
    sameList(a.records, b.records, sameString) &&
    sameList(a.protect, b.protect, sameString) &&
    sameRules(a.rules, b.rules)
  );
}

/** The verdicts of one run's named calls; create one per run. */
export class VerdictMemo {
  private readonly kept = new Map<string, Kept>();

  /** `decide({ ...call, ...side })`, from the memo when that exact input was judged before. */
  decide(call: NamedCall, side: RunSide): PolicyDecision {
    const key = `${call.capability}\0${call.tool}\0${call.readOnly ? 1 : 0}`;
    const hit = this.kept.get(key);
    if (hit !== undefined && sameSide(hit.side, side)) return hit.verdict;
    const verdict = Object.freeze(
      decide({ ...side, capability: call.capability, tool: call.tool, readOnly: call.readOnly }),
    );
    if (this.kept.size >= MAX_KEPT && hit === undefined) this.kept.clear();
    const copy: RunSide = { projectDir: side.projectDir, mode: side.mode };
    if (side.homeDir !== undefined) copy.homeDir = side.homeDir;
    const extraRoots = copyOf(side.extraRoots);
    const records = copyOf(side.records);
    const protect = copyOf(side.protect);
    const rules = rulesCopy(side.rules);
    if (extraRoots !== undefined) copy.extraRoots = extraRoots;
    if (records !== undefined) copy.records = records;
    if (protect !== undefined) copy.protect = protect;
    if (rules !== undefined) copy.rules = rules;
    this.kept.set(key, { side: copy, verdict });
    return verdict;
  }
}
