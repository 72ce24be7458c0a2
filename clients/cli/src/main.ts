#!/usr/bin/env node
// The `verdict` bin.
import { runCli } from './cli';

runCli(process.argv.slice(2), { env: process.env, cwd: process.cwd(), streams: process }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`verdict: ${String(error)}\n`);
    process.exitCode = 3;
  },
);
