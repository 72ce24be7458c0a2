import type { Pagination } from '@verdict/contracts';
import { fitToBudget, renderAll, type Section } from './markdownDocument';
import { runSections } from './run/markdown';
import { suiteSections } from './suite/markdown';
import { testSections } from './test/markdown';
import type { DebugBundle } from './types';

/**
 * The Markdown body of as=markdown (spec §4.2): a one-paragraph headline (what failed, where, how to
 * rerun), then the spec's sections in the spec's order:
 * - run: Failing suites, Failing tests, Actions;
 * - suite: Failing tests (each with Error and Failure window), Actions;
 * - test: Error, Failure window, Steps, stdout, stderr, Attempt history, Artifacts, Actions.
 * A section with nothing to show still appears, saying so (or naming the view that omitted it), so a
 * reader can tell "empty" from "cut".
 *
 * With `budgetChars` the document is at most that many characters (UTF-16 code units, JavaScript's
 * `length`). Sections are kept by priority — headline, then the most useful for debugging — and the
 * first one that does not fit whole is cut between lines (an open code block is closed, and a note says
 * the section was cut); every later one is dropped. The document then ends with
 * `… truncated: N more characters (raise budgetChars or use as=json)`, shortened for tiny budgets; when
 * not even the headline fits, the headline is cut mid-line, still followed by a marker.
 */

export interface RenderOptions {
  /** 1 to 128000 (spec §8); absent: no limit. */
  budgetChars?: number;
  /** The page shown at run and suite scope, for "page 2 of 3" and the next-page action. */
  pagination?: Pagination;
}

/**
 * The Markdown document of a bundle (already cut to its view).
 *
 * @example res.type('text/markdown').send(renderMarkdown(applyView(bundle, view), { budgetChars, pagination }));
 */
export function renderMarkdown(bundle: DebugBundle, options: RenderOptions = {}): string {
  const sections = sectionsOf(bundle, options.pagination);
  return options.budgetChars === undefined ? renderAll(sections) : fitToBudget(sections, options.budgetChars);
}

function sectionsOf(bundle: DebugBundle, pagination: Pagination | undefined): Section[] {
  switch (bundle.scope) {
    case 'run':
      return runSections(bundle, pagination);
    case 'suite':
      return suiteSections(bundle, pagination);
    case 'test':
      return testSections(bundle);
  }
}
