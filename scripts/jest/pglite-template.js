// Jest globalSetup of the integration tests: one PGlite data folder, initialized once per jest run and
// dumped to a tar, that every in-memory test database then loads instead of running initdb itself
// (initdb is most of a PGlite's start-up: ~7 s each, and the integration files open hundreds).
// The dump is a fresh initdb's output: the databases start exactly as empty as before.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function createPGliteTemplate() {
  const { PGlite } = require('@electric-sql/pglite');
  const db = await PGlite.create();
  try {
    const dump = await db.dumpDataDir('none');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-pglite-'));
    const file = path.join(folder, 'pgdata.tar');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    // Jest's workers (and, in band, the test files) inherit the environment set here.
    process.env.VERDICT_PGLITE_TEMPLATE = file;
    globalThis.verdictPGliteTemplateFolder = folder;
  } finally {
    await db.close();
  }
};
