export interface Requirement {
  met(): boolean;
  /** What to set (or install) to run the tests, for the line printed when they are not run. */
  needs: string;
}
export declare const mysqlBaseUrl: () => string | undefined;
export declare const testMysqlUrl: () => string | undefined;
export declare const chromiumPath: () => string;
export declare const testRedisUrl: () => string | undefined;
export declare const requirements: Record<'mysql' | 'mysqlSuite' | 'redis' | 'redisServer' | 'chromium', Requirement>;
export declare function reportNotRun(what: string, requirement: Requirement): void;
export declare function specsNotRun(): string[];
