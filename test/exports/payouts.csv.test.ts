import { toCsv } from '../../console/src/shared/csv';
import { csvCell, csvLine, PAYOUT_COLUMNS, PAYOUT_HEADER, payoutLine } from '../../src/exports/payouts.csv';
import { parseCsv } from '../support/csv';
import { record } from '../store/store.fixtures';

describe('payouts as CSV (RFC 4180, OWASP CSV injection)', () => {
  it('leaves plain text bare and quotes a cell with a comma, a quote, a CR or a LF, its quotes doubled', () => {
    expect(csvCell('ref-1')).toBe('ref-1');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvLine(['a', 'b,c', '"'])).toBe('a,"b,c",""""\r\n');
  });

  // OWASP's CSV-injection list: what a spreadsheet may run when it starts a cell, first or after spaces.
  it.each([
    ['=1+2', 'equals'],
    ['+260971234567', 'plus'],
    ['-3', 'minus'],
    ['@SUM(A1)', 'at'],
    ['\tx', 'tab'],
    ['\rx', 'carriage return'],
    [';=1+2', 'semicolon'],
    ['|calc', 'pipe'],
    ['=HYPERLINK("http://evil","click")', 'a formula with quotes'],
    [' =1+2', 'equals after a space'],
    ['   @SUM(A1)', 'at after spaces'],
    ['  +1', 'plus after spaces'],
    [' -3', 'minus after a space'],
    [' ;=1+2', 'semicolon after a space'],
    ['  |calc', 'pipe after spaces'],
    [' \tx', 'tab after a space'],
    [' \rx', 'carriage return after a space'],
  ])('neutralises %j (%s): prefixed with a single quote, quoted', (value) => {
    const cell = csvCell(value);
    expect(cell).toBe(`"'${value.replaceAll('"', '""')}"`);
    expect(parseCsv(`${cell}\r\n`)).toEqual([[`'${value}`]]);
  });

  it.each([
    ['a=b', 'a formula character not first'],
    ['a;b|c', 'a semicolon and a pipe inside'],
    ['ref-1', 'a minus inside'],
    ['  ref 1', 'leading spaces before plain text'],
    ['   ', 'spaces alone'],
  ])('leaves %j (%s) as it is', (value) => {
    expect(csvCell(value)).toBe(value);
  });

  it('writes a header row, then one row per payout that reads back as the payout', () => {
    const at = Date.parse('2026-03-01T10:00:00.000Z');
    const payout = record({
      referenceId: 'inv,42',
      amount: '1234.5',
      status: 'SUCCESSFUL',
      identifier: 'MM-1',
      message: '=cmd|"/c calc"!A1',
      createdBy: 'alice',
      approval: {
        requestedBy: 'alice',
        requesterId: 'a',
        expiresAt: '2026-03-02T10:00:00.000Z',
        decision: 'APPROVED',
        decidedBy: '@bob',
      },
      updatedAt: '2026-03-01T10:00:05.000Z',
      sendAt: '2026-03-01T10:00:03.000Z',
    });
    const rows = parseCsv(PAYOUT_HEADER + payoutLine({ at, referenceId: payout.referenceId, record: payout }));
    expect(rows[0]).toEqual([...PAYOUT_COLUMNS]);
    expect(Object.fromEntries(PAYOUT_COLUMNS.map((column, i) => [column, rows[1][i]]))).toEqual({
      referenceId: 'inv,42',
      createdAt: '2026-03-01T10:00:00.000Z',
      channel: 'MOBILE_MONEY',
      paymentType: 'OPERATOR_A_MONEY',
      amount: '1234.50',
      currency: 'ZMW',
      accountNumber: '260971234567',
      status: 'SUCCESSFUL',
      identifier: 'MM-1',
      message: `'=cmd|"/c calc"!A1`,
      requestedBy: 'alice',
      approvedBy: "'@bob",
      updatedAt: '2026-03-01T10:00:05.000Z',
      sendAt: '2026-03-01T10:00:03.000Z',
    });
  });

  it('names no approver for a payout rejected or never held, and the creator as its requester', () => {
    const held = record({
      createdBy: 'carol',
      approval: { requestedBy: 'carol', requesterId: 'c', expiresAt: 'x', decision: 'REJECTED', decidedBy: 'dan' },
    });
    const plain = record({ createdBy: 'erin', amount: '7' });
    const cells = (r: typeof held) => parseCsv(payoutLine({ at: 0, referenceId: r.referenceId, record: r }))[0];
    const column = (name: (typeof PAYOUT_COLUMNS)[number]) => PAYOUT_COLUMNS.indexOf(name);
    expect(cells(held)[column('approvedBy')]).toBe('');
    expect(cells(held)[column('requestedBy')]).toBe('carol');
    expect(cells(plain)[column('requestedBy')]).toBe('erin');
    expect(cells(plain)[column('amount')]).toBe('7.00');
    expect(cells(plain)[column('sendAt')]).toBe('');
  });

  it.each([
    ['=1+2'],
    ['+260971234567'],
    ['-3'],
    ['@SUM(A1)'],
    ['\tx'],
    ['\rx'],
    [';=1+2'],
    ['|calc'],
    ['=HYPERLINK("http://evil","click")'],
    ['   @SUM(A1)'],
    [' -3'],
    ['a;b|c'],
    ['  ref 1'],
    ['150.75'],
    ['say "hi"'],
    ['two\nlines'],
    [''],
  ])("writes %j in the console's CSV as in the export (console/src/shared/csv.ts keeps the same rule)", (value) => {
    expect(toCsv([[value]])).toBe(csvLine([value]));
  });
});
