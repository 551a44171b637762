// Lint rules: typed checks for dropped promises, and the host/worker/shared import boundaries of DESIGN.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const boundary = (group, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group, message }] }],
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.ci/**',
      'bench/results/**',
      '.scratch/**',
      'bench/explore-eval/.corpora/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/worker/**'],
    rules: boundary(
      [
        '**/host/**',
        'node:fs',
        'node:fs/*',
        'fs',
        'fs/*',
        'node:child_process',
        'child_process',
        'node:net',
        'net',
        'node:http',
        'http',
        'node:https',
        'https',
        'node:dgram',
        'dgram',
      ],
      'src/worker reaches the world only through host capabilities (DESIGN.md invariants).',
    ),
  },
  {
    files: ['src/host/**'],
    rules: boundary(['**/worker/**'], 'src/host never imports src/worker: they meet only in src/shared.'),
  },
  {
    files: ['src/shared/**'],
    rules: boundary(
      ['**/host/**', '**/worker/**', 'node:*', 'fs', 'child_process', 'net', 'http', 'https'],
      'src/shared is pure contracts: no I/O, no host or worker imports.',
    ),
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
      },
    },
  },
  {
    // The CommonJS loaders of the worker threads and the code cache (scripts/*.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        exports: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
