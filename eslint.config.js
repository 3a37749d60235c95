// Type-aware linting for the whole tree (typescript-eslint needs the TypeScript JS API, hence TypeScript 6.0).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', name: ['describe', 'it', 'test', 'suite'], package: 'node:test' }],
      }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Route handlers share an async signature whether or not they await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // What the tool writes to a terminal goes through cli/terminal.ts, which escapes control characters (issue 34); the
    // Lambdas log through lambda/lambda-logger.ts, whose replacer does the same.
    files: ['functions/**/*.ts'],
    ignores: ['functions/cli/terminal.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': ['error',
        { object: 'process', property: 'stdout', message: 'write through functions/cli/terminal.ts (writeOut), which makes text printable' },
        { object: 'process', property: 'stderr', message: 'write through functions/cli/terminal.ts (writeErr), which makes text printable' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly', console: 'readonly' } },
  },
);
