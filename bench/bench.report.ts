import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fmt } from './bench.stats';

export interface Table {
  title?: string;
  headers: string[];
  rows: string[][];
}

export interface Section {
  title: string;
  tables: Table[];
  notes: string[];
}

/** A target (issues 8 and 17) beside what this run reached; printed, never asserted. */
export interface TargetCheck {
  what: string;
  target: string;
  result: string;
  /** undefined: not measured in this run. */
  met?: boolean;
}

export interface ChartGroup {
  label: string;
  values: { series: string; value: number }[];
}

export interface Chart {
  title: string;
  unit: string;
  groups: ChartGroup[];
  target?: { value: number; label: string };
}

export function markdownTable(table: Table): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const head = [line(table.headers), line(table.headers.map(() => '---'))];
  return [...(table.title ? [`**${table.title}**`, ''] : []), ...head, ...table.rows.map(line)].join('\n');
}

export function sectionMarkdown(section: Section): string {
  const parts = [`## ${section.title}`, ...section.tables.map(markdownTable)];
  if (section.notes.length > 0) parts.push(section.notes.map((n) => `- ${n}`).join('\n'));
  return parts.join('\n\n');
}

export function targetsTable(targets: TargetCheck[]): Table {
  const verdict = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? 'met' : 'not met');
  return {
    headers: ['target', 'wanted', 'this run', ''],
    rows: targets.map((t) => [t.what, t.target, t.result, verdict(t.met)]),
  };
}

/** Which source the figures came from; read-only git, and nothing when git is not there. */
function sourceRevision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty === '' ? commit : `${commit} + uncommitted changes in src/`;
  } catch {
    return 'unknown';
  }
}

/** Anything else running shares the cores: the load average at start shows it (at end it includes the bench itself). */
export function machineTable(command: string, startedAt: Date, seconds: number, loadAtStart: number[]): Table {
  const cpu = cpus();
  const load = (values: number[]) => values.map((v) => fmt(v, 2)).join(' / ');
  return {
    headers: ['', ''],
    rows: [
      ['command', `\`${command}\``],
      ['date', startedAt.toISOString()],
      ['duration', `${fmt(seconds, 0)} s`],
      ['source', sourceRevision()],
      ['node', process.version],
      ['CPU', `${cpu[0]?.model ?? 'unknown'} (${cpu.length} cores)`],
      ['memory', `${fmt(totalmem() / 2 ** 30, 0)} GiB`],
      ['OS', `${platform()} ${release()}`],
      ['load average 1/5/15 min', `${load(loadAtStart)} at start, ${load(loadavg())} at end`],
    ],
  };
}

const COLORS = ['#4e79a7', '#e15759', '#59a14f', '#f28e2b'];

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** 1, 2 or 5 times a power of ten, so that about five ticks fit. */
function tickStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
}

/** One bar panel, grouped by label, one colour per series, an optional dashed target line. */
function panelSvg(chart: Chart, x0: number, width: number, height: number): string {
  const top = 50;
  const bottom = height - 50;
  const left = x0 + 60;
  const right = x0 + width - 15;
  const values = chart.groups.flatMap((g) => g.values.map((v) => v.value)).filter(Number.isFinite);
  const max = Math.max(1, ...values, chart.target ? chart.target.value : 0) * 1.15;
  const step = tickStep(max);
  const y = (v: number) => bottom - (v / max) * (bottom - top);
  const out: string[] = [
    `<text x="${x0 + width / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  for (let t = 0; t <= max; t += step) {
    out.push(`<line x1="${left}" x2="${right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11">${fmt(t, 1)}</text>`);
  }
  out.push(
    `<text x="${x0 + 14}" y="${(top + bottom) / 2}" font-size="11" transform="rotate(-90 ${x0 + 14} ${(top + bottom) / 2})" text-anchor="middle">${escapeXml(chart.unit)}</text>`,
  );
  const series = [...new Set(chart.groups.flatMap((g) => g.values.map((v) => v.series)))];
  const groupWidth = (right - left) / Math.max(1, chart.groups.length);
  const barWidth = Math.min(60, (groupWidth * 0.7) / Math.max(1, series.length));
  chart.groups.forEach((group, gi) => {
    const gx = left + gi * groupWidth + (groupWidth - barWidth * series.length) / 2;
    group.values.forEach((v) => {
      if (!Number.isFinite(v.value)) return;
      const si = series.indexOf(v.series);
      const bx = gx + si * barWidth;
      out.push(
        `<rect x="${bx}" y="${y(v.value)}" width="${barWidth - 4}" height="${bottom - y(v.value)}" fill="${COLORS[si % COLORS.length]}"/>`,
      );
      out.push(
        `<text x="${bx + (barWidth - 4) / 2}" y="${y(v.value) - 4}" text-anchor="middle" font-size="10">${fmt(v.value, v.value < 10 ? 1 : 0)}</text>`,
      );
    });
    out.push(
      `<text x="${left + gi * groupWidth + groupWidth / 2}" y="${bottom + 16}" text-anchor="middle" font-size="11">${escapeXml(group.label)}</text>`,
    );
  });
  if (chart.target) {
    out.push(
      `<line x1="${left}" x2="${right}" y1="${y(chart.target.value)}" y2="${y(chart.target.value)}" stroke="#333" stroke-dasharray="5 4"/>`,
    );
    out.push(
      `<text x="${right}" y="${y(chart.target.value) - 4}" text-anchor="end" font-size="10">${escapeXml(chart.target.label)}</text>`,
    );
  }
  if (series.length > 1) {
    series.forEach((name, si) => {
      const lx = left + si * 90;
      out.push(`<rect x="${lx}" y="${height - 22}" width="10" height="10" fill="${COLORS[si % COLORS.length]}"/>`);
      out.push(`<text x="${lx + 14}" y="${height - 13}" font-size="11">${escapeXml(name)}</text>`);
    });
  }
  out.push(`<line x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`);
  return out.join('\n');
}

export function chartsSvg(charts: Chart[], caption: string): string {
  const width = 400;
  const height = 320;
  const total = Math.max(1, charts.length) * width;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="${height + 24}" viewBox="0 0 ${total} ${height + 24}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...charts.map((c, i) => panelSvg(c, i * width, width, height)),
    `<text x="8" y="${height + 16}" font-size="10" fill="#555">${escapeXml(caption)}</text>`,
    '</svg>',
  ].join('\n');
}

export interface ReportFiles {
  markdown: string;
  /** Only when the run drew charts. */
  svg?: string;
}

/** Writes `<name>.md`, and `<name>.svg` when there are charts (latest: the main run; memory, mutation: single parts). */
export async function writeReport(dir: string, name: string, markdown: string, svg?: string): Promise<ReportFiles> {
  await mkdir(dir, { recursive: true });
  const files = { markdown: join(dir, `${name}.md`), svg: svg === undefined ? undefined : join(dir, `${name}.svg`) };
  await writeFile(files.markdown, markdown);
  if (files.svg && svg !== undefined) await writeFile(files.svg, svg);
  return files;
}
