// Strict, type-aware lint: the promise rules catch a nak or ack that is never awaited,
// and the exhaustiveness check keeps every closed union's switch complete.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  // D5: a package reaches another only through its @tollgate/<lib> alias, and never another
  // app (the CLI once read the session-service's src/ and its copy of the load drifted).
  // Specs and testing helpers may still take a lib's testing fixtures by path.
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\.?/(.*/)?src(/|$)',
              message:
                'import another package by its @tollgate alias, never by path into its src/ (D5)',
            },
          ],
        },
      ],
    },
  },
  // D5: only an entry point ends the process; a service reports a FatalFailure instead.
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: [
      '**/*.spec.ts',
      '**/testing/**',
      'apps/*/src/main.ts',
      'libs/service-runtime/src/bootstrap.ts',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'exit',
          message: 'report a FatalFailure (FatalFailures); only an entry point exits (D5)',
        },
      ],
    },
  },
  {
    files: ['apps/**/*.spec.ts', 'apps/**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)(apps/[a-z-]+|\\.\\./[a-z-]+)/src(/|$)',
              message: "an app's spec never imports another app's src/ (D5)",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
