// Lint: the recommended JS and TypeScript rules, plus the few that keep the canary honest.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.scratch/', 'coverage/', '.bench/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // stdout belongs to the CLI's result (and --json to exactly one Verdict): write on purpose, not by accident.
      'no-console': ['error', { allow: ['error', 'warn'] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**', 'infra/**'],
    rules: { 'no-console': 'off' },
  },
);
