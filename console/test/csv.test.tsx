import { parseCsv, toCsv } from '../src/shared/csv';

describe("the console's CSV", () => {
  it.each([
    '=1+2',
    '+260971234567',
    '-3',
    '@SUM(A1)',
    '\tx',
    '\rx',
    ';=1+2',
    '|calc',
    '=HYPERLINK("http://evil","click")',
    ' -3',
    '   @SUM(A1)',
  ])('shows %j as text, never as a formula, as the gateway export does', (value) => {
    expect(toCsv([[value]])).toBe(`"'${value.replaceAll('"', '""')}"\r\n`);
  });

  it('leaves plain text alone, quotes what needs quotes, and reads back what it wrote', () => {
    expect(toCsv([['a;b|c', 'ref-1', '150.75', 'a,b']])).toBe('a;b|c,ref-1,150.75,"a,b"\r\n');
    expect(parseCsv(toCsv([['say "hi"', 'two\nlines']]))).toEqual([['say "hi"', 'two\nlines']]);
  });
});
