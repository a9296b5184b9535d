// ESLint flat config: the recommended JavaScript and typescript-eslint rules over the whole project.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.wrangler/',
      'contracts/build/',
      'coverage/',
      '.conformance/',
      'packages/client/dist/',
      'test/artifacts/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `_` marks a deliberately unused binding (e.g. destructuring a field away).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      // A binding read by a closure created before its one assignment must stay `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-console': 'error',
    },
  },
  // The page's own script runs in the browser, beside Swagger UI's bundle.
  {
    files: ['src/http/discovery/assets/**'],
    languageOptions: { globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
  },
  // Command-line scripts and benchmarks talk to a person on the console.
  { files: ['scripts/**', 'bench/**', 'examples/**'], rules: { 'no-console': 'off' } },
  // On Workers the console is where logs go (Workers Logs collect it).
  { files: ['src/edge/console-logger.ts', 'src/edge/worker.ts'], rules: { 'no-console': 'off' } },
);
