// @ts-check
/**
 * The servers a test may need and the machine may not have: one source for jest.config.js (which
 * leaves out a spec whose whole file needs a missing server) and test/support/requirements.ts (which
 * leaves out a block of a spec). `npm test` needs Node alone; whatever needs MariaDB/MySQL or Redis
 * runs only when its variable says where that server is, and otherwise one line names what did not run:
 *
 * - `mysql`: a MariaDB/MySQL server beside the suite's database, from `TEST_MYSQL_URL` (or from
 *   `DATABASE_URL` when the suite itself runs on MySQL). Tests create their own databases there.
 * - `mysqlSuite`: the suite itself on MariaDB/MySQL (a mysql `DATABASE_URL`), for tests that only
 *   mean something there.
 * - `redis`: a Redis at `REDIS_URL`.
 * - `redisServer`: a `redis-server` binary on PATH, to start a Redis of the test's own (the test
 *   stops and restarts it). Also asks for `REDIS_URL`, the one switch that says "this machine has
 *   Redis", so a plain `npm test` never starts servers either.
 * - `chromium`: a Chromium to drive the API docs in (Debian's, or `CHROMIUM_PATH`).
 *
 * `.ci/run` sets `TEST_MYSQL_URL` and `REDIS_URL`, so CI runs all of them.
 */
const { accessSync, constants, existsSync } = require('node:fs');
const { delimiter, join } = require('node:path');

const mysqlPattern = /^(mysql|mariadb):/;

/** The MySQL/MariaDB URL the suite runs against (a mysql DATABASE_URL), or undefined for SQLite. */
const mysqlBaseUrl = () =>
  process.env.DATABASE_URL && mysqlPattern.test(process.env.DATABASE_URL) ? process.env.DATABASE_URL : undefined;

/** The MySQL server for tests of MySQL-only behaviour, or undefined when none is configured. */
const testMysqlUrl = () => {
  const explicit = process.env.TEST_MYSQL_URL;
  return mysqlBaseUrl() ?? (explicit && mysqlPattern.test(explicit) ? explicit : undefined);
};

/** Debian's chromium (`.ci/run` installs it when missing), or the one CHROMIUM_PATH names. */
const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Redis for tests of shared counters, or undefined when none is configured. */
const testRedisUrl = () => process.env.REDIS_URL || undefined;

/** @param {string} binary */
const onPath = (binary) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

const requirements = {
  mysql: { met: () => !!testMysqlUrl(), needs: 'MariaDB/MySQL: set TEST_MYSQL_URL (or a mysql DATABASE_URL)' },
  mysqlSuite: { met: () => !!mysqlBaseUrl(), needs: 'the suite on MariaDB/MySQL: a mysql DATABASE_URL' },
  redis: { met: () => !!testRedisUrl(), needs: 'Redis: set REDIS_URL' },
  redisServer: {
    met: () => !!testRedisUrl() && onPath('redis-server'),
    needs: 'a redis-server binary on PATH, and REDIS_URL set',
  },
  chromium: { met: () => existsSync(chromiumPath()), needs: 'Chromium: install chromium or set CHROMIUM_PATH' },
};

/** e2e specs whose every test needs a server, by path from the project root. */
const WHOLE_SPECS = {
  'test/database-outage.e2e-spec.ts': { what: 'database outage and recovery', needs: requirements.mysql },
  'test/database-failover.e2e-spec.ts': { what: 'database failover between hosts', needs: requirements.mysqlSuite },
  'test/suppression-lookup.e2e-spec.ts': {
    what: 'the suppression check on MariaDB',
    needs: requirements.mysql,
  },
  'test/bulk-load.e2e-spec.ts': { what: 'bulk inserts as LOAD DATA on MariaDB', needs: requirements.mysql },
  'test/prepared-statements.e2e-spec.ts': {
    what: 'prepared and text statements on MariaDB',
    needs: requirements.mysql,
  },
  'test/transaction-commit.e2e-spec.ts': {
    what: "a write's COMMIT sent with its last statements on MariaDB",
    needs: requirements.mysql,
  },
  'test/redis-outage.e2e-spec.ts': { what: 'rate limiting through a Redis outage', needs: requirements.redisServer },
  'test/docs-browser.e2e-spec.ts': { what: '/api/docs in a browser', needs: requirements.chromium },
};

/**
 * @param {string} what
 * @param {{ needs: string }} requirement
 */
function reportNotRun(what, requirement) {
  process.stdout.write(`not run: ${what} (needs ${requirement.needs})\n`);
}

/** The specs of WHOLE_SPECS this machine cannot run, each reported in one line. */
function specsNotRun() {
  return Object.entries(WHOLE_SPECS)
    .filter(([, spec]) => !spec.needs.met())
    .map(([path, spec]) => {
      reportNotRun(spec.what, spec.needs);
      return path;
    });
}

module.exports = { mysqlBaseUrl, testMysqlUrl, testRedisUrl, chromiumPath, requirements, reportNotRun, specsNotRun };
