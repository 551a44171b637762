// Ink and React are for `cadre chat` only: the bundle every other command runs holds none of them
// (so `run`, `explore` and `batch` start as fast as before), and the chat's own bundle holds
// React's production build.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';

const dist = path.dirname(CLI);

describe('the chat UI is loaded lazily', () => {
  it('the CLI bundle holds no Ink, React or layout engine, and loads the UI bundle only by import()', async () => {
    const cli = await readFile(path.join(dist, 'cadre.cjs'), 'utf8');
    // Booleans, not the bundle itself, in the assertion: a failure must not print half a megabyte.
    for (const marker of ['react-reconciler', 'yoga', 'useSyncExternalStore', 'ink-text'])
      expect({ marker, found: cli.includes(marker) }).toEqual({ marker, found: false });
    expect(cli.includes('chat-ui.mjs')).toBe(true);
  });

  it("the chat's bundle is an ES module with React's production build", async () => {
    const ui = await readFile(path.join(dist, '..', 'ui', 'chat-ui.mjs'), 'utf8');
    expect(/export\s*\{[^}]*runChat/.test(ui)).toBe(true);
    expect(ui.includes('ink-text')).toBe(true);
    // React's development build (its key warning, its dev-only checks) is not in it.
    expect(ui.includes('Each child in a list should have a unique')).toBe(false);
    expect(ui.includes('react.development')).toBe(false);
  });
});
