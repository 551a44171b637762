// What `/agents` draws on each of its screens: the list, one agent, a name or description being
// typed, a draft under review (checked by the registry's parser), a deletion to confirm.
import { Text } from 'ink';
import type { LoadedAgent } from '../../../shared/agent-definition.js';
import { checkDraftIn, problems } from '../../chat/agent-files.js';
import { agentPage } from '../../cli/commands/agents-format.js';
import type { ComposerState } from '../composer-model.js';
import { clipLine, sanitizeForTerminal } from '../terminal-text.js';
import { LineInput } from './line-input.js';

/** The screens of `/agents`. */
export type Screen =
  | { kind: 'list' }
  | { kind: 'show'; agent: LoadedAgent }
  | { kind: 'ask'; purpose: 'name' | 'describe' }
  | { kind: 'review'; draft: string }
  | { kind: 'delete'; agent: LoadedAgent };

const title = (text: string) => (
  <Text bold color="cyan">
    {text}
  </Text>
);
const foot = (text: string) => <Text dimColor>{text}</Text>;

/** What every screen is drawn with. */
interface ScreenProps {
  agents: readonly LoadedAgent[];
  index: number;
  input: ComposerState;
  /** Where a draft would be saved in the project (its check reads the file name). */
  projectAgents: string;
  width: number;
  height: number;
}

/** One screen of `/agents`. */
export function AgentsScreen(props: ScreenProps & { screen: Screen }) {
  const { screen } = props;
  switch (screen.kind) {
    case 'show':
      return <ShowScreen agent={screen.agent} height={props.height} />;
    case 'ask':
      return <AskScreen purpose={screen.purpose} input={props.input} width={props.width} />;
    case 'review':
      return <ReviewScreen draft={screen.draft} {...props} />;
    case 'delete':
      return <DeleteScreen agent={screen.agent} />;
    case 'list':
      return <ListScreen {...props} />;
  }
}

/** One agent's resolved definition, cut to the terminal's height. */
function ShowScreen({ agent, height }: { agent: LoadedAgent; height: number }) {
  return (
    <>
      {title(`/agents \u203a ${agent.name}`)}
      <Text>
        {sanitizeForTerminal(
          agentPage(agent)
            .split('\n')
            .slice(0, height - 8)
            .join('\n'),
        )}
      </Text>
      {foot('Enter or Esc: back')}
    </>
  );
}

/** A new agent's name, or the one-line description the model drafts it from, being typed. */
function AskScreen(props: { purpose: 'name' | 'describe'; input: ComposerState; width: number }) {
  const byName = props.purpose === 'name';
  return (
    <>
      {title(
        byName
          ? '/agents \u203a new agent from the template'
          : '/agents \u203a new agent drafted by the model',
      )}
      <Text>{byName ? 'Name (lowercase words joined by hyphens):' : 'Describe the agent in one line:'}</Text>
      <LineInput state={props.input} width={props.width - 4} />
      {foot('Enter: continue  Esc: back')}
    </>
  );
}

/** A draft under review: its text, and what the registry's parser says of it. */
function ReviewScreen(props: ScreenProps & { draft: string }) {
  const checked = checkDraftIn(props.projectAgents, props.draft);
  const issues = problems(checked);
  const lines = props.draft.split('\n');
  const room = Math.max(5, props.height - 12 - issues.length);
  return (
    <>
      {title(`/agents \u203a review ${checked.name ?? 'the draft'}`)}
      <Text>{sanitizeForTerminal(lines.slice(0, room).join('\n'))}</Text>
      {lines.length > room ? foot(`\u2026 ${lines.length - room} more lines (e: open it in $EDITOR)`) : null}
      {issues.length === 0 ? (
        <Text color="green">valid</Text>
      ) : (
        issues.map((issue, i) => (
          <Text key={i} color={issue.startsWith('error') ? 'red' : 'yellow'} wrap="truncate">
            {clipLine(issue, props.width - 2)}
          </Text>
        ))
      )}
      {foot(
        'p: save to the project (.cadre/agents)  u: save for you (~/.cadre/agents)  e: edit in $EDITOR  Esc: discard',
      )}
    </>
  );
}

/** A deletion to confirm. */
function DeleteScreen({ agent }: { agent: LoadedAgent }) {
  return (
    <>
      {title('/agents \u203a delete')}
      <Text color="yellow">
        {sanitizeForTerminal(`Delete ${agent.name} (${agent.path})? y: delete, any other key: keep`)}
      </Text>
    </>
  );
}

/**
 * The first row shown of a list of `count` rows, `room` of them fitting, that keeps the selected
 * row (`index`) in the middle where it can.
 */
export function listWindowStart(index: number, count: number, room: number): number {
  return Math.max(0, Math.min(index - Math.floor(room / 2), count - room));
}

/** Every agent, one line each, the selected one marked, scrolled to keep it in view. */
function ListScreen({ agents, index, width, height }: ScreenProps) {
  const room = Math.max(3, height - 8);
  const start = listWindowStart(index, agents.length, room);
  return (
    <>
      {title(`/agents (${agents.length})`)}
      {agents.slice(start, start + room).map((a, i) => (
        <Text key={a.name} wrap="truncate" {...(start + i === index ? { color: 'cyan', bold: true } : {})}>
          {clipLine(
            `${start + i === index ? '\u276f' : ' '} ${a.name.padEnd(18)} ${a.source.padEnd(14)} ${a.path}`,
            width - 2,
          )}
        </Text>
      ))}
      {foot(
        'Enter: show  c: create from template  g: generate with the model  e: edit in $EDITOR  d: delete  r: reload  Esc: close',
      )}
    </>
  );
}
