// Which run a launch may resume, and its conversation. A subagent resumes only a run its own tree
// started; a person (a launch with no parent: `cadre run --resume`, the library's `resume`) names
// any run of the project, and the new tree carries on as the resumed run's. Either way the run must
// be of the same agent type, and its transcript must replay into a valid conversation (`resumable`
// in runtime-core.ts checks all three).
import type { ConversationMessage } from '../../shared/events.js';
import type { RuntimeCore } from './runtime-core.js';
import type { AgentTree } from './tree.js';

/**
 * Claims `agentId` for resume and reads its conversation, with what had to be repaired to rebuild
 * it (transcripts/resume.ts). The claim is taken before any await (two
 * resumes of one id in the same turn must not both start) and given back when the resume is
 * refused; the launcher gives it back once the run is registered.
 */
export async function claimResume(
  core: RuntimeCore,
  agentId: string,
  agentType: string,
  tree: AgentTree,
  bySubagent: boolean,
): Promise<{ messages: ConversationMessage[]; warnings: string[] }> {
  core.reserveResume(agentId);
  try {
    const found = await core.resumable(agentId, { agentType, ...(bySubagent ? { tree: tree.uid } : {}) });
    if (!bySubagent && found.tree !== undefined) tree.adopt(found.tree);
    return { messages: found.messages, warnings: found.warnings };
  } catch (error) {
    core.releaseResume(agentId);
    throw error;
  }
}
