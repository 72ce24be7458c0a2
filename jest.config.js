// Three kinds of tests, told apart by suffix so each kind can run alone:
// *.unit.test.ts (no I/O), *.int.test.ts (real PostgreSQL, Kafka, Redis), *.e2e.test.ts (real processes).
const transform = {
  '^.+\\.(t|j)s$': [
    '@swc/jest',
    { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
  ],
};
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/.infra/', '/.verdict/', '/dist/'],
  // The containers suite leaves image layers (with copies of clients/*/package.json) under .infra/:
  // a second run in the same checkout must not see them as duplicate packages.
  modulePathIgnorePatterns: ['<rootDir>/.infra/', '<rootDir>/.verdict/'],
};

module.exports = {
  reporters: ['default', '<rootDir>/scripts/jest/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.test.ts'] },
    {
      ...common,
      displayName: 'int',
      testMatch: ['<rootDir>/**/*.int.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/scripts/jest/timeout-120s.js'],
      // One fresh PGlite data folder per run, loaded by every in-memory test database instead of initdb.
      globalSetup: '<rootDir>/scripts/jest/pglite-template.js',
      globalTeardown: '<rootDir>/scripts/jest/pglite-template-teardown.js',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.e2e.test.ts', '<rootDir>/clients/**/*.e2e.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/scripts/jest/timeout-300s.js'],
    },
  ],
};
