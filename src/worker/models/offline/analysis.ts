// One look at everything the searches returned: the evidence gathered from the tool results and
// the files ranked on it. The planner uses it to choose what to read; when it decides to report,
// the report is written from the same analysis instead of working it all out again.
import { gatherEvidence, type Evidence } from './evidence.js';
import type { ToolRecord } from './conversation.js';
import type { QuestionTerms } from './question.js';
import { rankFiles, type Ranked } from './ranking.js';
import { followUpCalls } from './follow-up.js';
import { plannedDiscovery, type PlannedCall } from './search-plan.js';

/** The evidence and the ranking of one state of the conversation. */
export interface Analysis {
  evidence: Evidence;
  ranked: Ranked[];
}

/**
 * Analyses the tool results of a run that was offered `offered` (`followUps`, when the caller has
 * worked them out already).
 */
export function analyse(
  question: QuestionTerms,
  task: string,
  records: readonly ToolRecord[],
  offered: ReadonlySet<string>,
  followUps: readonly PlannedCall[] = followUpCalls(question, offered, records),
): Analysis {
  const planned = [...plannedDiscovery(question, offered, records), ...followUps];
  const evidence = gatherEvidence(records, planned);
  return { evidence, ranked: rankFiles(question, task, evidence) };
}
