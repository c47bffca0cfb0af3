import { requirements, reportNotRun, type Requirement } from './servers.cjs';

/**
 * Blocks of a spec that need a server the machine may not have (./servers.cjs says which and how
 * they are switched on; a spec whose whole file needs one is left out by jest.config.js instead).
 */
export { mysqlBaseUrl, reportNotRun, requirements, testMysqlUrl, testRedisUrl } from './servers.cjs';

/** `describe` when the requirement is met; otherwise the block is not declared and one line says so. */
export function describeWith(requirement: Requirement, name: string, fn: () => void): void {
  if (requirement.met()) describe(name, fn);
  else reportNotRun(name, requirement);
}

export const describeWithRedis = (name: string, fn: () => void) => describeWith(requirements.redis, name, fn);
