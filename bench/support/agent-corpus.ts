// Agent files shaped like the public Claude Code collections: kept in category folders with a
// README each, a description that carries `<example>` blocks on one line (some with `: ` that only
// the quote retry reads), 10-15 tools mixing cadre's, Claude Code's and MCP names, and a system
// prompt of about 7 KB of Markdown sections and checklists.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const CATEGORIES = [
  '01-core-development',
  '02-language-specialists',
  '03-infrastructure',
  '04-quality-security',
  '05-data-ai',
  '06-developer-experience',
  '07-specialized-domains',
  '08-business-product',
  '09-meta-orchestration',
  '10-research-analysis',
];

const TOOL_POOL = [
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'Bash',
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'Task',
  'mcp__context7__resolve-library-id',
  'mcp__context7__get-library-docs',
  'mcp__sequential-thinking__sequentialthinking',
  'NotebookEdit',
];

function description(name: string, i: number): string {
  const examples = Array.from(
    { length: 3 },
    (_, k) =>
      `<example>Context: The user is working on feature ${k} of project ${i}. user: "Can you review the ${name} changes for case ${k}?" assistant: "I'll use the ${name} agent to review it." <commentary>Reviewing ${name} work is this agent's job.</commentary></example>`,
  ).join(' ');
  // One in three is written as Claude Code's generator wrote them: plain, with ": " inside.
  const text = `Use this agent when the work involves ${name.replace(/-/g, ' ')}. Examples: ${examples}`;
  return i % 3 === 0 ? text : JSON.stringify(text);
}

function prompt(name: string): string {
  const sections = [
    'Core responsibilities',
    'Workflow',
    'Quality checklist',
    'Communication',
    'Anti-patterns',
  ];
  return sections
    .map(
      (title, s) =>
        `## ${title}\n\n` +
        Array.from(
          { length: 9 },
          (_, k) =>
            `- ${title} item ${k}: as the ${name} specialist, check step ${s}.${k} carefully, cite \`file:line\`, and explain the trade-offs before changing anything.`,
        ).join('\n') +
        "\n\nWhen invoked:\n1. Query the context for the relevant files.\n2. Review the existing implementation and its tests.\n3. Analyse the requirements and the constraints.\n4. Implement or report, following the project's conventions.",
    )
    .join('\n\n');
}

function agentFile(name: string, i: number): string {
  const count = 10 + (i % 6);
  const tools = Array.from({ length: count }, (_, k) => TOOL_POOL[(i + k) % TOOL_POOL.length]).join(', ');
  return [
    '---',
    `name: ${name}`,
    `description: ${description(name, i)}`,
    `tools: ${tools}`,
    `model: ${['sonnet', 'opus', 'haiku', 'inherit'][i % 4]}`,
    `color: ${['blue', 'green', 'red', 'purple'][i % 4]}`,
    '---',
    '',
    `You are a senior ${name.replace(/-/g, ' ')} with deep expertise. Your focus spans design, implementation and review.`,
    '',
    prompt(name),
    '',
  ].join('\n');
}

/** Writes `count` agent files under `agentsDir` in category folders; returns their total bytes. */
export async function writeAgentCorpus(agentsDir: string, count: number): Promise<number> {
  let bytes = 0;
  await Promise.all(
    CATEGORIES.map(async (category) => {
      await mkdir(path.join(agentsDir, category), { recursive: true });
      await writeFile(
        path.join(agentsDir, category, 'README.md'),
        `# ${category}\n\nAgents of this category.\n`,
      );
    }),
  );
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = `${CATEGORIES[i % CATEGORIES.length]?.slice(3)}-expert-${String(i).padStart(4, '0')}`;
      const content = agentFile(name, i);
      bytes += Buffer.byteLength(content);
      await writeFile(path.join(agentsDir, CATEGORIES[i % CATEGORIES.length] ?? '', `${name}.md`), content);
    }),
  );
  return bytes;
}
