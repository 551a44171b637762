import { configDefaults, defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './test/support/slow-tests.js';

const ALL_TESTS = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Tests run the dist/ bundles: rebuild them when a source is newer (npx vitest run <file>).
    // Inherited by both projects; once the first has rebuilt, the second finds nothing stale.
    globalSetup: ['test/support/fresh-build.ts'],
    // Two projects: `vitest run` (npm test) runs both; `--project fast` (npm run test:fast) is the
    // inner loop, `--project slow` the long files (test/support/slow-tests.ts).
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ALL_TESTS, exclude: [...configDefaults.exclude, ...SLOW_TESTS] },
      },
      { extends: true, test: { name: 'slow', include: [...SLOW_TESTS] } },
    ],
  },
});
