import { describe, expect, it } from 'vitest';
import { parseTaskFile } from '../../../src/host/batch/task-file.js';
import { AgentNames } from '../../../src/shared/agent-name.js';

const agents = new AgentNames(['explore', 'worker', 'data_scientist']);

describe('parseTaskFile', () => {
  it('finds an agent whatever the case it is written in', () => {
    const parsed = parseTaskFile('t.jsonl', '{"id": "a", "agent": "Data_Scientist", "prompt": "p"}', agents);
    expect(parsed.issues).toEqual([]);
    expect(parsed.tasks.map((t) => t.agent)).toEqual(['Data_Scientist']);
  });

  it('reads JSONL, skipping comments and blank lines, and reports bad lines with their numbers', () => {
    const text = [
      '{"id": "a", "agent": "explore", "prompt": "one"}',
      '',
      '# a comment',
      '{"id": 7, "agent": "worker", "prompt": "numeric id", "timeout": 5, "max_turns": 3, "cwd": "sub"}',
      '{"id": "b", "agent": "explore"}',
      '{"id": "c", "agent": "explore", "prompt": "x", "tools": ["Bash"]}',
      '[1, 2',
    ].join('\n');
    const parsed = parseTaskFile('tasks.jsonl', text, agents);
    expect(parsed.tasks).toEqual([
      { id: 'a', agent: 'explore', prompt: 'one' },
      { id: '7', agent: 'worker', prompt: 'numeric id', timeout: 5, max_turns: 3, cwd: 'sub' },
    ]);
    expect(parsed.issues.map((i) => i.line)).toEqual([5, 6, 7]);
    expect(parsed.issues[0]?.message).toMatch(/prompt/);
    expect(parsed.issues[1]?.message).toMatch(/tools/);
    expect(parsed.issues[2]?.message).toMatch(/invalid JSON/);
  });

  it('reads a YAML list (or a tasks: list) with the line of each entry', () => {
    const text = [
      'tasks:',
      '  - id: one',
      '    agent: explore',
      '    prompt: find it',
      '  - id: two',
      '    agent: nobody',
      '    prompt: x',
      '  - id: one',
      '    agent: worker',
      '    prompt: dup',
    ].join('\n');
    const parsed = parseTaskFile('tasks.yaml', text, agents);
    expect(parsed.tasks).toEqual([{ id: 'one', agent: 'explore', prompt: 'find it' }]);
    expect(parsed.issues).toEqual([
      { line: 5, message: 'agent: unknown agent "nobody"' },
      { line: 8, message: 'id: duplicate id "one" (first on line 2)' },
    ]);
  });

  it('reports malformed YAML and a document that is not a list', () => {
    expect(parseTaskFile('t.yml', 'a: [1, 2', agents).issues[0]?.message).toMatch(/invalid YAML/);
    expect(parseTaskFile('t.yml', 'just: a map', agents).issues[0]?.message).toMatch(/expected a YAML list/);
  });
});
