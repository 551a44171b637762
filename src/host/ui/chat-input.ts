// What a line typed in the chat means: a slash command, an @mention that runs an agent directly,
// or a message for the main agent.

/** The slash commands the chat knows. */
const SLASH_COMMANDS = ['agents', 'tasks', 'permissions', 'help', 'exit'] as const;
/** A slash command name. */
type SlashCommand = (typeof SLASH_COMMANDS)[number];

/** A parsed input line. */
export type ChatInput =
  | { kind: 'slash'; command: SlashCommand; args: string }
  | { kind: 'mention'; agent: string; task: string }
  | { kind: 'prompt'; text: string }
  | { kind: 'error'; message: string };

/** Parses a submitted line; `agents` are the names an @mention may use. */
export function parseChatInput(text: string, agents: readonly string[]): ChatInput {
  const line = text.trim();
  if (line.startsWith('/')) {
    const [word = '', ...rest] = line.slice(1).split(/\s+/);
    const command = SLASH_COMMANDS.find((c) => c === word.toLowerCase());
    if (!command)
      return {
        kind: 'error',
        message: `unknown command "/${word}"; the commands are ${SLASH_COMMANDS.map((c) => `/${c}`).join(', ')}`,
      };
    return { kind: 'slash', command, args: rest.join(' ') };
  }
  const mention = /^@([a-z0-9][a-z0-9-]*)(?:\s+([\s\S]*))?$/i.exec(line);
  if (mention && agents.includes(mention[1] ?? '')) {
    const task = (mention[2] ?? '').trim();
    if (task === '')
      return { kind: 'error', message: `@${mention[1]}: write the task after the agent's name` };
    return { kind: 'mention', agent: mention[1] ?? '', task };
  }
  if (mention && !/\s/.test(line))
    return { kind: 'error', message: `no agent named "${mention[1]}" (type @ to list them)` };
  return { kind: 'prompt', text: line };
}
