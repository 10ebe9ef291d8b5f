import { compile, join, raw, shape, sql } from '../../src/database/sql.dialect';

describe('sql: one placeholder style, compiled per engine from structure', () => {
  const id = 'm-1';
  const nested = sql`merchant_id = ${id} AND day = ${'2026-11-29'}`;
  const cases = [
    {
      name: 'a value per placeholder, in order',
      statement: sql`SELECT 1 FROM t WHERE a = ${1} AND b = ${'x'}`,
      sqlite: 'SELECT 1 FROM t WHERE a = ? AND b = ?',
      postgres: 'SELECT 1 FROM t WHERE a = $1 AND b = $2',
      values: [1, 'x'],
    },
    {
      name: 'a fragment spliced with its own values, numbering on after it',
      statement: sql`SELECT ${0} WHERE ${nested} LIMIT ${5}`,
      sqlite: 'SELECT ? WHERE merchant_id = ? AND day = ? LIMIT ?',
      postgres: 'SELECT $1 WHERE merchant_id = $2 AND day = $3 LIMIT $4',
      values: [0, id, '2026-11-29', 5],
    },
    {
      name: 'a jsonb ? operator in the text left as it is (no finished SQL is rewritten)',
      statement: sql`SELECT detail ? 'key' FROM t WHERE id = ${7}`,
      sqlite: "SELECT detail ? 'key' FROM t WHERE id = ?",
      postgres: "SELECT detail ? 'key' FROM t WHERE id = $1",
      values: [7],
    },
    {
      name: 'raw text and joined parts',
      statement: sql`INSERT INTO t (${raw('a, b')}) VALUES (${join([sql`${1}`, sql`${2}::bigint`])})`,
      sqlite: 'INSERT INTO t (a, b) VALUES (?, ?::bigint)',
      postgres: 'INSERT INTO t (a, b) VALUES ($1, $2::bigint)',
      values: [1, 2],
    },
    {
      name: 'a shape used with its own values: the text of the template it was made from',
      statement: shape(sql`UPDATE t SET ${join([sql`a = ${0}`, sql`b = ${0}`])} WHERE id = ${0}`)(['x', 'y', 9]),
      sqlite: 'UPDATE t SET a = ?, b = ? WHERE id = ?',
      postgres: 'UPDATE t SET a = $1, b = $2 WHERE id = $3',
      values: ['x', 'y', 9],
    },
    {
      name: 'the same call site again, with other values (its text is kept once per engine)',
      statement: [1, 2].map((n) => sql`SELECT ${n}, ${'v'}`)[1],
      sqlite: 'SELECT ?, ?',
      postgres: 'SELECT $1, $2',
      values: [2, 'v'],
    },
    {
      name: 'an empty join',
      statement: sql`SELECT 1${join([])}`,
      sqlite: 'SELECT 1',
      postgres: 'SELECT 1',
      values: [],
    },
  ];
  it.each(cases)('$name', ({ statement, sqlite, postgres, values }) => {
    expect(compile(statement, 'sqlite')).toEqual({ text: sqlite, values });
    expect(compile(statement, 'postgres')).toEqual({ text: postgres, values });
  });
});
