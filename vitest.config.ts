import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Tests run the dist/ bundles: rebuild them when a source is newer (npx vitest run <file>).
    globalSetup: ['test/support/fresh-build.ts'],
  },
});
