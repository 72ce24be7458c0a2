import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const services = ['gateway', 'test-results', 'manual-testing', 'analytics', 'webhooks'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '.infra/**',
      '.verdict/**',
      'coverage/**',
      // Build outputs of the client packages (generated from the contracts, bundled for npm).
      'clients/*/dist/**',
      'clients/*/src/generated/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Only platform/ talks to infrastructure clients; services see ports.
  {
    files: ['services/**/*.ts', 'contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['kafkajs', 'pg', '@electric-sql/pglite', 'redis'].map((name) => ({
            name,
            message: 'Infrastructure clients live behind ports in platform/.',
          })),
        },
      ],
    },
  },
  // A client package is installed from npm: its source uses no other Verdict package than @verdict/client,
  // which is published beside it.
  {
    files: ['clients/*/src/**/*.ts'],
    ignores: ['clients/*/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@verdict/*',
                '!@verdict/client',
                '!@verdict/client/*',
                '**/contracts/**',
                '**/platform/**',
                '**/services/**',
              ],
              message:
                'Clients are published alone: they depend on no workspace package but the published @verdict/client.',
            },
          ],
        },
      ],
    },
  },
  // The reporting kit bundles the two id functions of contracts that import nothing but node:crypto, so a
  // reporter names a test case and an error signature exactly as the server does (quarantine: 'enforce').
  {
    files: ['clients/client/src/reporting/quarantine.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@verdict/(?!client(/|$)|contracts/(errorSignature|testCaseId)$)',
              message:
                'Clients are published alone: only the bundled id functions of contracts are allowed here.',
            },
            {
              group: ['**/platform/**', '**/services/**', '../**/contracts/**'],
              message:
                'Clients are published alone: only the bundled id functions of contracts are allowed here.',
            },
          ],
        },
      ],
    },
  },
  // Services never import each other; contracts imports nothing from services.
  ...services.map((service) => ({
    files: [`services/${service}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['kafkajs', 'pg', '@electric-sql/pglite', 'redis'].map((name) => ({
            name,
            message: 'Infrastructure clients live behind ports in platform/.',
          })),
          patterns: [
            {
              group: services
                .filter((s) => s !== service)
                .flatMap((s) => [`@verdict/${s}`, `@verdict/${s}/*`, `**/services/${s}/**`]),
              message: 'Services never import each other: share a contract in contracts/ instead.',
            },
          ],
        },
      ],
    },
  })),
);
