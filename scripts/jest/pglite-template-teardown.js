// Jest globalTeardown of the integration tests: removes the PGlite template that pglite-template.js made.
const fs = require('node:fs');

module.exports = async function removePGliteTemplate() {
  const folder = globalThis.verdictPGliteTemplateFolder;
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
};
