// The pieces of building a definition: issues reported at their field (prefixed, with the line of
// the top-level key) and sorted by line, and the system prompt taken from the body or the field.
import { describe, expect, it } from 'vitest';
import { DefinitionIssues } from '../../../src/host/registry/definition-issues.js';
import { systemPrompt } from '../../../src/host/registry/system-prompt.js';

describe('DefinitionIssues', () => {
  it('names a field with the prefix and the line of its top-level key', () => {
    const issues = new DefinitionIssues({
      path: '/p/config.json',
      fieldPrefix: 'agents.scout',
      keyLines: new Map([['tools', 4]]),
    });
    expect(issues.at('tools.1', 'bad')).toEqual({
      path: '/p/config.json',
      line: 4,
      field: 'agents.scout.tools.1',
      message: 'bad',
    });
    expect(issues.at('model', 'unknown')).toEqual({
      path: '/p/config.json',
      field: 'agents.scout.model',
      message: 'unknown',
    });
    expect(issues.at(undefined, 'whole')).toEqual({ path: '/p/config.json', message: 'whole' });
  });

  it('returns both lists in line order, with the claimed name only when there is one', () => {
    const issues = new DefinitionIssues({
      path: 'a.md',
      keyLines: new Map([
        ['name', 2],
        ['model', 5],
      ]),
    });
    issues.error('model', 'second');
    issues.error('name', 'first');
    issues.warn('model', 'w');
    const failed = issues.failed('scout');
    expect(failed.errors.map((e) => e.message)).toEqual(['first', 'second']);
    expect(failed.warnings).toHaveLength(1);
    expect(failed.name).toBe('scout');
    expect(issues.failed(undefined)).not.toHaveProperty('name');
  });
});

describe('systemPrompt', () => {
  const issues = () => new DefinitionIssues({ path: 'a.md' });

  it('takes the trimmed body of a file, or the prompt field of an entry', () => {
    const log = issues();
    expect(systemPrompt('\n  You review code.\n', undefined, log)).toBe('You review code.');
    expect(systemPrompt(undefined, '  Be brief. ', log)).toBe('Be brief.');
    expect(systemPrompt('   ', 'From the field', log)).toBe('From the field');
    expect(log.errors).toEqual([]);
    expect(log.warnings).toEqual([]);
  });

  it('refuses a prompt set twice', () => {
    const log = issues();
    expect(systemPrompt('Body', 'Field', log)).toBe('Body');
    expect(log.errors).toEqual([
      {
        path: 'a.md',
        field: 'prompt',
        message: 'is set twice: the Markdown body is the system prompt; remove the prompt field or the body',
      },
    ]);
  });

  it('warns of an empty prompt, at the field only for an entry', () => {
    const file = issues();
    systemPrompt('', undefined, file);
    expect(file.warnings).toEqual([
      { path: 'a.md', message: 'has no system prompt: the agent gets only the task' },
    ]);
    const entry = issues();
    systemPrompt(undefined, undefined, entry);
    expect(entry.warnings[0]?.field).toBe('prompt');
  });

  it('warns of a prompt too large for a model context', () => {
    const log = issues();
    systemPrompt('x'.repeat(300_000), undefined, log);
    expect(log.warnings.map((w) => w.message)).toEqual([
      "system prompt is 293 KiB (about 75k tokens); it may not fit the model's context",
    ]);
    const small = issues();
    systemPrompt('x'.repeat(200_000), undefined, small);
    expect(small.warnings).toEqual([]);
  });
});
