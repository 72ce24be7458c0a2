// @verdict/cli as a library: the `verdict` command as a function (see README.md).
export { runCli, USAGE } from './cli';
export { EXIT, CliError } from './exitCodes';
