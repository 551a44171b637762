// Lint rules: typed checks for dropped promises, and the host/worker/shared import boundaries of DESIGN.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const boundary = (group, message, ...more) => ({
  'no-restricted-imports': ['error', { patterns: [{ group, message }, ...more] }],
});

const MCP_SDK = {
  group: ['@modelcontextprotocol/*', '@modelcontextprotocol/**'],
  message:
    'Only src/host/capabilities/mcp/sdk-adapter.ts imports the MCP SDK (loaded lazily, client side only).',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-test/**',
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
    // Functions fit on a screen (STYLE.md: about 80 lines); past 100 lines a function is split.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false }] },
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
      MCP_SDK,
    ),
  },
  {
    files: ['src/host/**'],
    rules: boundary(
      ['**/worker/**'],
      'src/host never imports src/worker: they meet only in src/shared.',
      MCP_SDK,
    ),
  },
  {
    files: ['src/host/capabilities/mcp/sdk-adapter.ts'],
    rules: boundary(['**/worker/**'], 'src/host never imports src/worker: they meet only in src/shared.', {
      group: ['@modelcontextprotocol/sdk/server/**', '@modelcontextprotocol/sdk/server'],
      message: 'The MCP adapter uses the SDK client only (client/, shared/, types.js).',
    }),
  },
  {
    files: ['src/shared/**'],
    rules: boundary(
      ['**/host/**', '**/worker/**', 'node:*', 'fs', 'child_process', 'net', 'http', 'https'],
      'src/shared is pure contracts: no I/O, no host or worker imports.',
      MCP_SDK,
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
