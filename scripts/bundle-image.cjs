#!/usr/bin/env node
// The Dockerfile's build step: every service entry bundled into the folder given, as `npm start` and
// `npm run start:distributed` bundle them (scripts/bundle.cjs), for the image's `verdict` command to run.
'use strict';
const { bundleEntries } = require('./bundle.cjs');

const ENTRIES = {
  gateway: 'services/gateway/src/main.ts',
  'test-results': 'services/test-results/src/main.ts',
  'manual-testing': 'services/manual-testing/src/main.ts',
  webhooks: 'services/webhooks/src/main.ts',
  analytics: 'services/analytics/src/main.ts',
  embedded: 'services/embedded/src/main.ts',
};

const outdir = process.argv[2];
if (!outdir) {
  process.stderr.write('usage: node scripts/bundle-image.cjs <outdir>\n');
  process.exit(2);
}
bundleEntries(ENTRIES, { outdir }).then(
  (bundles) => process.stdout.write(`${Object.values(bundles).join('\n')}\n`),
  (error) => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  },
);
