/** Jest runs the TypeScript sources through SWC (decorator metadata included). */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];

const shared = {
  testEnvironment: 'node',
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': swc },
};

// Specs whose every test needs a server this machine lacks are left out, each named in one line.
const notRun = require('./test/support/servers.cjs').specsNotRun();

/** @type {import('jest').Config} */
module.exports = {
  // e2e hooks boot an app and migrate a fresh database; seeding a few hundred records takes seconds.
  testTimeout: 60000,
  // Jest's default (one worker fewer than the cores) is a single worker on a 2-core machine, but an
  // e2e spec spends much of its time waiting on its database: two workers took the MariaDB suite
  // from 269 s to 187 s and the SQLite one from 264 s to 147 s here. (npm run test:galera runs in band.)
  maxWorkers: Math.max(2, require('node:os').availableParallelism() - 1),
  projects: [
    { ...shared, displayName: 'unit', rootDir: '.', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...notRun.map((path) => `<rootDir>/${path}`)],
      setupFiles: ['<rootDir>/test/support/setup-env.ts'],
    },
    // Generated bodies for every POST and PUT operation of the OpenAPI document (fast-check); only run
    // by `npm run test:property` (PROPERTY_SEED, PROPERTY_RUNS), on SQLite or on DATABASE_URL.
    {
      ...shared,
      displayName: 'property',
      rootDir: '.',
      testMatch: ['<rootDir>/test/property/**/*.property-spec.ts'],
      setupFiles: ['<rootDir>/test/support/setup-env.ts'],
    },
    // A throw-away 3-node MariaDB Galera cluster (test/support/galera-cluster.ts); only run by
    // `npm run test:galera` (it needs mariadbd, galera-4 and rsync, and a minute or two).
    {
      ...shared,
      displayName: 'galera',
      rootDir: '.',
      testMatch: ['<rootDir>/test/galera/**/*.galera-spec.ts'],
    },
  ],
};
