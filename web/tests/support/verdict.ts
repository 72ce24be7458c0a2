/**
 * What the global setup learnt from the `npm start` it launched, shared with the tests through a file
 * (workers are other processes), and the helpers the tests use to reach that Verdict.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ManualFixture } from './fixtureManual';
import { createVerdictAdminClient, createVerdictClient, unwrap, type VerdictClient } from '@verdict/client';

export interface VerdictState {
  /** Where the app runs: http://localhost:<port>. */
  url: string;
  projectId: string;
  organizationId: string;
  demoUserId: string;
  demoToken: string;
  /** The one-time sign-in link `npm start` printed (the sign-in test spends it). */
  signInLink: string;
  adminKey: string;
  /** Oldest first: passed, flaky, failed. */
  runIds: string[];
  failedRunId: string;
  /** The test that failed in the last run ("checkout › pays with a card", chromium). */
  failingCaseId: string;
  /** The debug bundle's `links.uiUrl` of that test. */
  failingUiUrl: string;
  /** The manual-testing fixture: suites, cases, a release and a run in it. */
  manual: ManualFixture;
}

export const STATE_FILE = path.join(import.meta.dirname, '..', '..', 'test-results', '.verdict-state.json');

export function verdictState(): VerdictState {
  return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as VerdictState;
}

export function clientFor(state: VerdictState, token: string): VerdictClient {
  return createVerdictClient({ baseUrl: state.url, token, project: state.projectId });
}

let people = 0;

/**
 * A new person with `role` in the demo organization and a personal token for the demo project: each test
 * signs in as its own person, so that no test spends another's rate limits.
 */
export async function newPerson(
  state: VerdictState,
  role: 'owner' | 'admin' | 'member' | 'viewer',
  name: { firstName: string; lastName: string } = {
    firstName: 'Robin',
    lastName: role === 'viewer' ? 'Viewer' : 'Member',
  },
): Promise<{ userId: string; tokenId: string; token: string }> {
  const admin = createVerdictAdminClient({ baseUrl: state.url, adminKey: state.adminKey });
  people += 1;
  const user = unwrap(
    await admin.api.POST('/users', {
      body: {
        email: `${role}-${process.pid}-${people}-${Date.now()}@example.com`,
        ...name,
      },
    }),
  ).data;
  unwrap(
    await admin.api.PUT('/organizations/{organizationId}/members/{userId}', {
      params: { path: { organizationId: state.organizationId, userId: user.id } },
      body: { role },
    }),
  );
  const issued = unwrap(
    await admin.api.POST('/tokens', {
      body: { kind: 'personal', userId: user.id, projectIds: [state.projectId] },
    }),
  ).data;
  return { userId: user.id, tokenId: issued.id, token: issued.token };
}

/** Revokes a token through the admin API. */
export async function revoke(state: VerdictState, tokenId: string): Promise<void> {
  const admin = createVerdictAdminClient({ baseUrl: state.url, adminKey: state.adminKey });
  unwrap(await admin.api.DELETE('/tokens/{tokenId}', { params: { path: { tokenId } } }));
}
