import {
  isDatabaseUnavailable,
  isReferencedRowViolation,
  scrubSecret,
  uniqueViolationField,
} from './database-errors.js';

describe('database errors', () => {
  it('recognises an unreachable database however the error is wrapped', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable({ name: 'QueryFailedError', driverError: { code: 'PROTOCOL_CONNECTION_LOST' } })).toBe(
      true,
    );
    expect(isDatabaseUnavailable({ cause: { code: 'ETIMEDOUT' } })).toBe(true);
    expect(isDatabaseUnavailable({ name: 'CannotExecuteNotConnectedError' })).toBe(true);
  });

  it('counts a cluster with no node online, or a node not yet ready, as unreachable', () => {
    // mysql2's PoolCluster, while every node of the pool is marked offline after a node's loss
    expect(
      isDatabaseUnavailable(Object.assign(new Error('Pool does Not have online node.'), { code: 'POOL_NONEONLINE' })),
    ).toBe(true);
    // a Galera node outside the primary component: "WSREP has not yet prepared node for application use"
    expect(isDatabaseUnavailable({ driverError: { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 } })).toBe(true);
  });

  it('does not mistake query errors for an outage', () => {
    expect(isDatabaseUnavailable({ code: 'ER_PARSE_ERROR' })).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });

  it('removes the password from error texts', () => {
    expect(scrubSecret("Access denied for 'u' using p@ss", 'p@ss')).toBe("Access denied for 'u' using ********");
    expect(scrubSecret('mysql://u:p%40ss@h', 'p@ss')).toBe('mysql://u:********@h');
    expect(scrubSecret('nothing here', undefined)).toBe('nothing here');
  });
});

describe('constraint violations', () => {
  it('names the field of a unique violation on either database', () => {
    expect(
      uniqueViolationField({
        driverError: { code: 'ER_DUP_ENTRY', sqlMessage: "Duplicate entry 'a@b.c' for key 'users_email_unique'" },
      }),
    ).toBe('email');
    expect(
      uniqueViolationField({
        driverError: { code: 'ER_DUP_ENTRY', sqlMessage: "Duplicate entry 'x' for key 'users.users_email_unique'" },
      }),
    ).toBe('email');
    expect(
      uniqueViolationField({
        driverError: { code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: tenants.name' },
      }),
    ).toBe('name');
    expect(
      uniqueViolationField({
        driverError: { code: 'ER_DUP_ENTRY', sqlMessage: "Duplicate entry '1' for key 'PRIMARY'" },
      }),
    ).toBeNull();
    expect(uniqueViolationField({ driverError: { code: 'ER_PARSE_ERROR' } })).toBeUndefined();
  });

  it('recognises a delete refused by a foreign key', () => {
    expect(isReferencedRowViolation({ driverError: { code: 'ER_ROW_IS_REFERENCED_2' } })).toBe(true);
    expect(
      isReferencedRowViolation({
        query: 'DELETE FROM "x" WHERE id = ?',
        driverError: { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
      }),
    ).toBe(true);
    expect(
      isReferencedRowViolation({ query: 'INSERT INTO "x"', driverError: { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' } }),
    ).toBe(false);
  });
});
