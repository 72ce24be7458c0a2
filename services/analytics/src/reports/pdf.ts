/**
 * PDF reports (API.md): a run report or a period report, drawn with pdfkit as vector charts — the pass-rate
 * trend (line), the flaky tests (bars) and the slowest tests (bars) — below a header of key figures. A run
 * report lists its failing tests first, each linked to its page in the web app: what a reader of a red
 * build's report looks for before any chart.
 */
import type PDFKitDocument from 'pdfkit';

export interface ReportContent {
  title: string;
  subtitle: string;
  figures: { label: string; value: string }[];
  /** A run's failed tests (at most a few hundred of `total`); absent in a period report. */
  failing?: {
    tests: { title: string; platform: string | null; errorLine: string | null; url: string }[];
    total: number;
  };
  /** A day without a decided execution has a null rate: no point is drawn for it. */
  trend: { date: string; passRate: number | null; executions: number }[];
  /** What the flaky bars count: a run's attempts per flaky test, or a period's flaky executions per test. */
  flakyHeading: string;
  flaky: { title: string; value: number }[];
  slowest: { title: string; value: number }[];
  generatedAt: Date;
}

type Doc = PDFKit.PDFDocument;

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;
const GREEN = '#2e7d32';
const ORANGE = '#ef6c00';
const BLUE = '#1565c0';

function heading(doc: Doc, text: string, y: number): number {
  doc.fillColor('#000').font('Helvetica-Bold').fontSize(13).text(text, MARGIN, y);
  return y + 20;
}

const RED = '#c62828';
const PAGE_BOTTOM = 780;

/** Continues on a new page when `needed` points would not fit on this one; returns where to write. */
function room(doc: Doc, y: number, needed: number): number {
  if (y + needed <= PAGE_BOTTOM) return y;
  doc.addPage();
  return MARGIN;
}

/** The failing tests, one block each: its title and platform (a link to its page), then its error's first line. */
function failingList(doc: Doc, failing: NonNullable<ReportContent['failing']>, y: number): number {
  if (failing.tests.length === 0) {
    doc.fillColor('#555').font('Helvetica').fontSize(9).text('No test failed in this run.', MARGIN, y);
    return y + 25;
  }
  for (const test of failing.tests) {
    y = room(doc, y, 26);
    const title = test.platform ? `${test.title} [${test.platform}]` : test.title;
    doc.fillColor(BLUE).font('Helvetica-Bold').fontSize(9).text(shorten(title, 110), MARGIN, y, {
      width: WIDTH,
      lineBreak: false,
      link: test.url,
      underline: false,
    });
    doc
      .fillColor(test.errorLine ? RED : '#555')
      .font('Courier')
      .fontSize(8)
      .text(shorten(test.errorLine ?? 'no error message', 115), MARGIN + 10, y + 11, {
        width: WIDTH - 10,
        lineBreak: false,
      });
    y += 26;
  }
  if (failing.total > failing.tests.length) {
    y = room(doc, y, 16);
    doc
      .fillColor('#555')
      .font('Helvetica')
      .fontSize(8)
      .text(`…and ${failing.total - failing.tests.length} more: see the run in Verdict.`, MARGIN, y);
    y += 16;
  }
  return y + 10;
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A line chart of pass rates (0–100 %) with its axis, grid and points. */
function lineChart(doc: Doc, points: ReportContent['trend'], y: number, height: number): number {
  const left = MARGIN + 30;
  const width = WIDTH - 30;
  doc.lineWidth(0.5).strokeColor('#bbb');
  for (const tick of [0, 25, 50, 75, 100]) {
    const ty = y + height - (tick / 100) * height;
    doc
      .moveTo(left, ty)
      .lineTo(left + width, ty)
      .stroke();
    doc
      .fillColor('#555')
      .font('Helvetica')
      .fontSize(7)
      .text(`${tick}%`, MARGIN, ty - 3, { width: 26, align: 'right' });
  }
  const measured = points.filter((p) => p.passRate !== null);
  if (measured.length === 0) {
    doc
      .fillColor('#555')
      .fontSize(9)
      .text('No executions in this period.', left + 10, y + height / 2 - 5);
    return y + height + 25;
  }
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const xOf = (index: number) => (points.length > 1 ? left + index * step : left + width / 2);
  const yOf = (rate: number) => y + height - (rate / 100) * height;
  doc.lineWidth(2).strokeColor(GREEN);
  let started = false;
  points.forEach((point, index) => {
    const rate = point.passRate;
    if (rate === null) return;
    if (!started) doc.moveTo(xOf(index), yOf(rate));
    else doc.lineTo(xOf(index), yOf(rate));
    started = true;
  });
  doc.stroke();
  points.forEach((point, index) => {
    const rate = point.passRate;
    if (rate !== null) doc.circle(xOf(index), yOf(rate), 2.5).fill(GREEN);
  });
  doc.fillColor('#555').font('Helvetica').fontSize(7);
  const first = points[0];
  const last = points.at(-1);
  if (first) doc.text(first.date, left, y + height + 4);
  if (last && points.length > 1)
    doc.text(last.date, left + width - 50, y + height + 4, { width: 50, align: 'right' });
  return y + height + 25;
}

/** Horizontal bars, one per entry, labelled and scaled to the largest value. */
function barChart(
  doc: Doc,
  bars: { title: string; value: number }[],
  y: number,
  colour: string,
  unit: string,
): number {
  if (bars.length === 0) {
    doc.fillColor('#555').font('Helvetica').fontSize(9).text('None in this period.', MARGIN, y);
    return y + 25;
  }
  const labelWidth = 190;
  const barLeft = MARGIN + labelWidth + 8;
  const barWidth = WIDTH - labelWidth - 70;
  const max = Math.max(...bars.map((bar) => bar.value), 1);
  for (const bar of bars) {
    doc
      .fillColor('#222')
      .font('Helvetica')
      .fontSize(8)
      .text(shorten(bar.title, 48), MARGIN, y + 2, {
        width: labelWidth,
        lineBreak: false,
      });
    doc.rect(barLeft, y, Math.max(2, (bar.value / max) * barWidth), 11).fill(colour);
    doc
      .fillColor('#222')
      .fontSize(8)
      .text(`${bar.value}${unit}`, barLeft + barWidth + 6, y + 2, { lineBreak: false });
    y += 16;
  }
  return y + 10;
}

/**
 * Renders a report to a PDF buffer.
 *
 * @example const pdf = await renderReport({ title: 'Run #42', … });
 */
export async function renderReport(content: ReportContent): Promise<Buffer> {
  // Loaded on the first report, not at start: pdfkit and its fonts cost ~26 MB of memory in every process.
  const { default: PDFDocument }: { default: typeof PDFKitDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: content.title, Producer: 'Verdict' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.rect(0, 0, 595.28, 80).fill(BLUE);
  doc.fillColor('#fff').font('Helvetica-Bold').fontSize(20).text(content.title, MARGIN, 24);
  doc.font('Helvetica').fontSize(10).text(content.subtitle, MARGIN, 50);
  let y = 100;
  const columnWidth = WIDTH / 4;
  content.figures.forEach((figure, index) => {
    const x = MARGIN + (index % 4) * columnWidth;
    const row = y + Math.floor(index / 4) * 40;
    doc
      .fillColor('#555')
      .font('Helvetica')
      .fontSize(8)
      .text(figure.label, x, row, { width: columnWidth - 6 });
    doc
      .fillColor('#000')
      .font('Helvetica-Bold')
      .fontSize(14)
      .text(figure.value, x, row + 11, { width: columnWidth - 6 });
  });
  y += Math.ceil(content.figures.length / 4) * 40 + 10;
  if (content.failing) {
    y = heading(doc, `Failing tests (${content.failing.total})`, y);
    y = failingList(doc, content.failing, y);
    y = room(doc, y, 180);
  }
  y = heading(doc, 'Pass rate trend', y);
  y = lineChart(doc, content.trend, y, 120);
  y = room(doc, y, 20 + 16 * Math.max(1, content.flaky.length));
  y = heading(doc, content.flakyHeading, y);
  y = barChart(doc, content.flaky, y, ORANGE, '');
  y = room(doc, y, 20 + 16 * Math.max(1, content.slowest.length));
  y = heading(doc, 'Slowest tests', y);
  barChart(doc, content.slowest, y, BLUE, ' ms');
  doc
    .fillColor('#888')
    .font('Helvetica')
    .fontSize(7)
    .text(`Generated by Verdict at ${content.generatedAt.toISOString()}`, MARGIN, 800, { lineBreak: false });
  doc.end();
  return done;
}
