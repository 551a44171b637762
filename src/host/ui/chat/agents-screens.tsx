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

/** One screen of `/agents`. */
export function AgentsScreen(props: {
  screen: Screen;
  agents: readonly LoadedAgent[];
  index: number;
  input: ComposerState;
  /** Where a draft would be saved in the project (its check reads the file name). */
  projectAgents: string;
  width: number;
  height: number;
}) {
  const { screen, agents, index, width } = props;
  switch (screen.kind) {
    case 'show':
      return (
        <>
          {title(`/agents \u203a ${screen.agent.name}`)}
          <Text>
            {sanitizeForTerminal(
              agentPage(screen.agent)
                .split('\n')
                .slice(0, props.height - 8)
                .join('\n'),
            )}
          </Text>
          {foot('Enter or Esc: back')}
        </>
      );
    case 'ask':
      return (
        <>
          {title(
            screen.purpose === 'name'
              ? '/agents \u203a new agent from the template'
              : '/agents \u203a new agent drafted by the model',
          )}
          <Text>
            {screen.purpose === 'name'
              ? 'Name (lowercase words joined by hyphens):'
              : 'Describe the agent in one line:'}
          </Text>
          <LineInput state={props.input} width={width - 4} />
          {foot('Enter: continue  Esc: back')}
        </>
      );
    case 'review': {
      const checked = checkDraftIn(props.projectAgents, screen.draft);
      const issues = problems(checked);
      const lines = screen.draft.split('\n');
      const room = Math.max(5, props.height - 12 - issues.length);
      return (
        <>
          {title(`/agents \u203a review ${checked.name ?? 'the draft'}`)}
          <Text>{sanitizeForTerminal(lines.slice(0, room).join('\n'))}</Text>
          {lines.length > room
            ? foot(`\u2026 ${lines.length - room} more lines (e: open it in $EDITOR)`)
            : null}
          {issues.length === 0 ? (
            <Text color="green">valid</Text>
          ) : (
            issues.map((issue, i) => (
              <Text key={i} color={issue.startsWith('error') ? 'red' : 'yellow'} wrap="truncate">
                {clipLine(issue, width - 2)}
              </Text>
            ))
          )}
          {foot(
            'p: save to the project (.cadre/agents)  u: save for you (~/.cadre/agents)  e: edit in $EDITOR  Esc: discard',
          )}
        </>
      );
    }
    case 'delete':
      return (
        <>
          {title('/agents \u203a delete')}
          <Text color="yellow">
            {sanitizeForTerminal(
              `Delete ${screen.agent.name} (${screen.agent.path})? y: delete, any other key: keep`,
            )}
          </Text>
        </>
      );
    case 'list': {
      const room = Math.max(3, props.height - 8);
      const start = Math.max(0, Math.min(index - Math.floor(room / 2), agents.length - room));
      return (
        <>
          {title(`/agents (${agents.length})`)}
          {agents.slice(start, start + room).map((a, i) => (
            <Text
              key={a.name}
              wrap="truncate"
              {...(start + i === index ? { color: 'cyan', bold: true } : {})}
            >
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
  }
}
