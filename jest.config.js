// One jest run covers unit specs beside the code and the integration, contract and
// journey suites under test/. Integration suites isolate themselves by NATS subject prefix
// and PostgreSQL schema, so files run in parallel.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testRegex: '\\.spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^@tollgate/([a-z-]+)$': '<rootDir>/libs/$1/src',
  },
  testTimeout: 60_000,
  maxWorkers: 2,
  // Longest suites first even without jest's cache of durations (a fresh clone, CI).
  testSequencer: '<rootDir>/test/support/slow-first.sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
