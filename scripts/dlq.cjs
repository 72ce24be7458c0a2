#!/usr/bin/env node
// `npm run dlq -- list|replay`: the dead letters of a running Verdict, through its admin API
// (/admin/v1/dead-letters), so that one command works in both modes: the embedded mode's in-process bus
// lives inside the Verdict process, and only that process can replay into it (docs/operations.md).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { root, infraDir, readEnvFile } = require('./lib.cjs');

const USAGE = `Usage:
  npm run dlq -- list   [--status pending|replaying|replayed] [--consumer <group>] [--event <id>] [--json]
  npm run dlq -- replay [--event <id>] [--consumer <group>] [--id <letter id>]

Verdict is found at VERDICT_URL (default http://127.0.0.1:$PORT, PORT 8080), its admin key in
VERDICT_ADMIN_KEY, else in $VERDICT_DATA_DIR/admin-key (embedded), else in the distributed launcher's
secrets file ($VERDICT_INFRA_DIR/secrets.env).`;

class UsageError extends Error {}

function adminKey() {
  if (process.env.VERDICT_ADMIN_KEY) return process.env.VERDICT_ADMIN_KEY;
  const embedded = path.join(path.resolve(root, process.env.VERDICT_DATA_DIR || '.verdict'), 'admin-key');
  if (fs.existsSync(embedded)) return fs.readFileSync(embedded, 'utf8').trim();
  const distributed = readEnvFile(path.join(infraDir(), 'secrets.env')).VERDICT_ADMIN_KEY;
  if (distributed) return distributed;
  throw new UsageError(
    `no admin key: set VERDICT_ADMIN_KEY (or VERDICT_DATA_DIR to the folder of a Verdict started with npm start)`,
  );
}

function baseUrl() {
  const url = process.env.VERDICT_URL || `http://127.0.0.1:${process.env.PORT || '8080'}`;
  return url.replace(/\/+$/, '');
}

async function call(method, urlPath, body) {
  const url = `${baseUrl()}/admin/v1${urlPath}`;
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${adminKey()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new Error(
      `cannot reach Verdict at ${baseUrl()} (${error.cause?.code || error.message}); is it running?`,
    );
  }
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${url} answered ${response.status} without JSON`);
  }
  if (!json.success)
    throw new Error(`${json.error?.code || response.status}: ${json.error?.message || text}`);
  return json;
}

const oneLine = (text, max) => {
  const flat = String(text).replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function describe(letter) {
  return [
    letter.id,
    letter.status.padEnd(9),
    `×${letter.times}`,
    letter.lastDeadLetteredAt,
    letter.consumer,
    `${letter.topic}/${letter.partition}@${letter.offset}`,
    `${letter.eventType ?? '-'} ${letter.eventId ?? '-'}`,
    oneLine(letter.error, 160),
  ].join('  ');
}

async function list(options) {
  const query = new URLSearchParams({ limit: '100' });
  if (options.status) query.set('status', options.status);
  if (options.consumer) query.set('consumer', options.consumer);
  if (options.event) query.set('eventId', options.event);
  let total = 0;
  for (let page = 1; ; page += 1) {
    query.set('page', String(page));
    const { data, pagination } = await call('GET', `/dead-letters?${query}`);
    total = pagination.total;
    for (const letter of data)
      process.stdout.write(`${options.json ? JSON.stringify(letter) : describe(letter)}\n`);
    if (!pagination.hasNext) break;
  }
  if (!options.json) process.stdout.write(`${total} dead letter${total === 1 ? '' : 's'}\n`);
}

async function replay(options) {
  const body = {};
  if (options.event) body.eventId = options.event;
  if (options.consumer) body.consumer = options.consumer;
  if (options.id) body.id = options.id;
  const { data } = await call('POST', '/dead-letters/replay', body);
  for (const letter of data.replayed) process.stdout.write(`replayed ${describe(letter)}\n`);
  process.stdout.write(
    data.replayed.length === 0
      ? 'nothing to replay: no dead letter that is not replayed yet matches\n'
      : `${data.replayed.length} sent to their consumers again; \`npm run dlq -- list\` shows how they fare\n`,
  );
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const spec = {
    list: {
      status: { type: 'string' },
      consumer: { type: 'string' },
      event: { type: 'string' },
      json: { type: 'boolean' },
    },
    replay: { event: { type: 'string' }, consumer: { type: 'string' }, id: { type: 'string' } },
  }[command];
  if (!spec) throw new UsageError(command ? `unknown command ${command}` : 'a command is required');
  let values;
  try {
    ({ values } = parseArgs({ args: rest, options: spec, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(error.message);
  }
  if (values.status && !['pending', 'replaying', 'replayed'].includes(values.status)) {
    throw new UsageError(`--status must be pending, replaying or replayed`);
  }
  await (command === 'list' ? list(values) : replay(values));
}

main().catch((error) => {
  if (error instanceof UsageError) {
    process.stderr.write(`dlq: ${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`dlq: ${error.message}\n`);
  process.exit(1);
});
