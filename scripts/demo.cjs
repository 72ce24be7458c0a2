#!/usr/bin/env node
// `npm run demo`: fills a "Demo shop" project of a running Verdict with 30 days of demo runs, through the
// public API (@verdict/client/demo), so a newcomer sees every page at work before sending a run of their
// own. The admin API finds or creates the project, the demo user as its owner and a token; the load is
// idempotent (each run has its ciRunId), so running the command again adds only the runs of new days.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const {
  createVerdictAdminClient,
  createVerdictClient,
  unwrap,
  VerdictApiError,
  VerdictNetworkError,
} = require('@verdict/client');
const { demoHistory, loadDemoRuns } = require('@verdict/client/demo');
const { root, infraDir, readEnvFile } = require('./lib.cjs');

const PROJECT = 'Demo shop';
const DEMO_EMAIL = 'demo@verdict.local';

class UsageError extends Error {}

function adminKey() {
  if (process.env.VERDICT_ADMIN_KEY) return process.env.VERDICT_ADMIN_KEY;
  const embedded = path.join(path.resolve(root, process.env.VERDICT_DATA_DIR || '.verdict'), 'admin-key');
  if (fs.existsSync(embedded)) return fs.readFileSync(embedded, 'utf8').trim();
  const distributed = readEnvFile(path.join(infraDir(), 'secrets.env')).VERDICT_ADMIN_KEY;
  if (distributed) return distributed;
  throw new UsageError(
    'no admin key: set VERDICT_ADMIN_KEY (or VERDICT_DATA_DIR to the folder of a Verdict started with npm start)',
  );
}

const say = (line) => process.stdout.write(`[verdict] ${line}\n`);

/** Every organization with its projects and members. */
async function organizations(admin) {
  const found = [];
  for (let page = 1; ; page += 1) {
    const answer = unwrap(await admin.api.GET('/organizations', { params: { query: { page, limit: 100 } } }));
    for (const { id } of answer.data)
      found.push(
        unwrap(
          await admin.api.GET('/organizations/{organizationId}', {
            params: { path: { organizationId: id } },
          }),
        ).data,
      );
    if (!answer.pagination.hasNext) return found;
  }
}

/** The demo user (the one `npm start` seeds, or a new one) and the Demo shop project it owns. */
async function demoProject(admin) {
  const all = await organizations(admin);
  let organization = all.find((candidate) => candidate.projects.some((project) => project.name === PROJECT));
  if (!organization) {
    // A free-tier organization of its own: the seeded "Demo" organization already has its one project.
    const created = unwrap(await admin.api.POST('/organizations', { body: { name: PROJECT } })).data;
    unwrap(
      await admin.api.POST('/organizations/{organizationId}/projects', {
        params: { path: { organizationId: created.id } },
        body: { name: PROJECT },
      }),
    );
    organization = unwrap(
      await admin.api.GET('/organizations/{organizationId}', {
        params: { path: { organizationId: created.id } },
      }),
    ).data;
    all.push(organization);
  }
  const project = organization.projects.find((candidate) => candidate.name === PROJECT);
  const users = unwrap(await admin.api.GET('/users', { params: { query: { email: DEMO_EMAIL } } })).data;
  const user =
    users[0] ??
    unwrap(
      await admin.api.POST('/users', { body: { email: DEMO_EMAIL, firstName: 'Demo', lastName: 'User' } }),
    ).data;
  if (!organization.members.some((member) => member.userId === user.id && member.role === 'owner'))
    unwrap(
      await admin.api.PUT('/organizations/{organizationId}/members/{userId}', {
        params: { path: { organizationId: organization.id, userId: user.id } },
        body: { role: 'owner' },
      }),
    );
  // The token reaches every project of the demo user's organizations: signing in with it shows them all.
  const projectIds = [
    ...new Set([
      project.id,
      ...all
        .filter((candidate) => candidate.members.some((member) => member.userId === user.id))
        .flatMap((candidate) => candidate.projects.map(({ id }) => id)),
    ]),
  ];
  return { project, user, projectIds };
}

async function main() {
  const baseUrl = (process.env.VERDICT_URL || `http://127.0.0.1:${process.env.PORT || '8080'}`).replace(
    /\/+$/,
    '',
  );
  const admin = createVerdictAdminClient({ baseUrl, adminKey: adminKey() });
  const { project, user, projectIds } = await demoProject(admin);
  let token = process.env.VERDICT_TOKEN;
  if (!token) {
    token = unwrap(
      await admin.api.POST('/tokens', {
        body: { kind: 'personal', userId: user.id, name: 'Demo shop', projectIds },
      }),
    ).data.token;
  }
  const client = createVerdictClient({ baseUrl, token, project: project.id });
  const { runs } = demoHistory({ now: new Date() });
  say(`loading ${runs.length} demo runs into "${PROJECT}" (${project.id}) at ${baseUrl}`);
  const summary = await loadDemoRuns(client, runs, {
    onProgress: ({ done, total, run }) => {
      if (done % 10 === 0 || done === total)
        say(`  ${done}/${total} runs (${run.start.branch}, ${run.start.startedAt.slice(0, 10)})`);
    },
  });
  say(
    `done: ${summary.created} runs created, ${summary.skipped} already there, ${summary.accepted} results recorded`,
  );
  say(`Project:  ${baseUrl}/projects/${project.id}/runs`);
  if (!process.env.VERDICT_TOKEN)
    say(
      `Token:    ${token}   (${DEMO_EMAIL}; shown once: sign in with it at ${baseUrl}/ to see the project)`,
    );
}

main().catch((error) => {
  // A mistake of configuration or an answer of the server is one line; anything else keeps its stack.
  const message =
    error instanceof UsageError || error instanceof VerdictApiError
      ? error.message
      : error instanceof VerdictNetworkError
        ? `${error.message}: is Verdict running there? (VERDICT_URL, default http://127.0.0.1:8080)`
        : (error && error.stack) || String(error);
  process.stderr.write(`[verdict] demo: ${message}\n`);
  process.exit(1);
});
